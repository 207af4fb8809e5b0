export declare function freePort(): Promise<number>;
export declare function ephemeralRange(): { low: number; high: number };
