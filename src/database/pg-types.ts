import pg from 'pg';

const DATE_OID = 1082;
const TIMESTAMPTZ_OID = 1184;

/** `date` columns stay `YYYY-MM-DD` strings instead of becoming local-midnight Dates. */
pg.types.setTypeParser(DATE_OID, (value: string) => value);

/** pg's own parser of `timestamptz` (the one the fast path stands in for). */
export const parseTimestamptzSlowly = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (
  value: string,
) => Date | number | null;

const ZERO = 48;

function digits(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The last value read by the fast path, and its instant: rows written in one transaction (an
 * import, a record created with its nested rows) share their timestamps, so a page of them reads
 * the same text over and over. Each read still gets a Date of its own (Dates are mutable).
 */
let lastText = '';
let lastMs = 0;

/**
 * A `timestamptz` as PostgreSQL writes it in the ISO date style (`2025-01-01 09:30:00.123+10`,
 * `+05:30`, fractions optional), read without a regular expression: every list answer reads a
 * few of them per row. Gives the same Date as pg's own parser (which reads anything else: BC
 * years, infinity, years before 100 or past 9999).
 */
export function parseTimestamptz(text: string): Date | number | null {
  if (text === lastText) return new Date(lastMs);
  const year = digits(text, 0, 4);
  if (
    year < 100 ||
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  ) {
    return parseTimestamptzSlowly(text);
  }
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return parseTimestamptzSlowly(text);
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === 46) {
    let end = at + 1;
    while (end < text.length && digits(text, end, 1) >= 0) end++;
    // As pg's parser does (1000 times the fraction as a float), so both give the same millisecond.
    ms = 1000 * parseFloat(text.slice(at, end));
    at = end;
  }
  const sign = text.charCodeAt(at);
  if (sign !== 43 && sign !== 45) return parseTimestamptzSlowly(text);
  const offsetHours = digits(text, at + 1, 2);
  let offsetSeconds = offsetHours * 3600;
  at += 3;
  // Minutes, then seconds, of the offset, each written only when it or the next is not zero.
  for (let unit = 60; unit >= 1 && at < text.length; unit /= 60) {
    const part = text.charCodeAt(at) === 58 ? digits(text, at + 1, 2) : -1;
    if (part < 0) return parseTimestamptzSlowly(text);
    offsetSeconds += part * unit;
    at += 3;
  }
  if (offsetHours < 0 || at !== text.length) return parseTimestamptzSlowly(text);
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  lastText = text;
  lastMs = utc - (sign === 45 ? -1 : 1) * offsetSeconds * 1000;
  return new Date(lastMs);
}

pg.types.setTypeParser(TIMESTAMPTZ_OID, parseTimestamptz);
