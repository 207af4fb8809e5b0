const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: the years written with four digits. */
const FIRST_MS = -62_167_219_200_000;
const END_MS = 253_402_300_800_000;
/** Days from 0000-03-01 to 1970-01-01 (the civil calendar counted from a March, leap day last). */
const EPOCH_FROM_MARCH_0000 = 719_468;
const DAYS_PER_400_YEARS = 146_097;

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/** `YYYY-MM-DDT` of a day counted from 1970-01-01 (Howard Hinnant's civil_from_days). */
function dayPrefix(days: number): string {
  const fromMarch0000 = days + EPOCH_FROM_MARCH_0000;
  const era = Math.floor(fromMarch0000 / DAYS_PER_400_YEARS);
  const dayOfEra = fromMarch0000 - era * DAYS_PER_400_YEARS;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T`;
}

/**
 * The last timestamp written, and its text. Rows written in one transaction share their
 * timestamps (a record's created_at and updated_at, its nested rows, a whole import), so an
 * answer writes the same one many times; handing out the same string also spares the collector
 * the pieces a template literal of this length is built from.
 */
let lastMs = Number.NaN;
let lastText = '';

/** The last day written: the timestamps of one answer mostly share their days. */
let lastDay = Number.NaN;
let lastDayPrefix = '';

/**
 * `date.toISOString()`, written from the date's milliseconds with integer arithmetic: a record
 * shows two timestamps for itself and two for each nested row, and V8's own method is about three
 * times slower. Years outside 0000-9999, and invalid dates, are left to `toISOString` (its
 * six-digit years, its RangeError).
 */
export function isoTimestamp(date: Date): string {
  const ms = date.getTime();
  if (ms === lastMs) return lastText;
  if (!(ms >= FIRST_MS && ms < END_MS)) return date.toISOString();
  const days = Math.floor(ms / DAY_MS);
  if (days !== lastDay) {
    lastDayPrefix = dayPrefix(days);
    lastDay = days;
  }
  let inDay = ms - days * DAY_MS;
  const milliseconds = inDay % 1000;
  inDay = (inDay - milliseconds) / 1000;
  const seconds = inDay % 60;
  inDay = (inDay - seconds) / 60;
  const minutes = inDay % 60;
  const hours = (inDay - minutes) / 60;
  lastText = `${lastDayPrefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[milliseconds]}Z`;
  lastMs = ms;
  return lastText;
}
