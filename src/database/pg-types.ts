import pg from 'pg';

const DATE_OID = 1082;

/** `date` columns stay `YYYY-MM-DD` strings instead of becoming local-midnight Dates. */
pg.types.setTypeParser(DATE_OID, (value: string) => value);
