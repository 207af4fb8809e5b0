/**
 * The DatabaseTarget the application was built on (URL, pool size, embedded or not), for a part
 * that opens a pool of its own beside the requests' one (the outbound webhook worker).
 */
export const DATABASE_TARGET = Symbol('DATABASE_TARGET');
