import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseTimestamptz, parseTimestamptzSlowly } from '../../src/database/pg-types.js';
import { isoTimestamp } from '../../src/common/http/iso-timestamp.js';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A timestamptz as PostgreSQL writes it in the ISO style, from its parts. */
function written(parts: {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  fraction: string;
  sign: '+' | '-';
  offsetHours: number;
  offsetMinutes: number;
  offsetSeconds: number;
}): string {
  let zone = `${parts.sign}${pad(parts.offsetHours)}`;
  if (parts.offsetMinutes > 0 || parts.offsetSeconds > 0) zone += `:${pad(parts.offsetMinutes)}`;
  if (parts.offsetSeconds > 0) zone += `:${pad(parts.offsetSeconds)}`;
  return (
    `${pad(parts.year, 4)}-${pad(parts.month)}-${pad(parts.day)} ${pad(parts.hour)}:${pad(parts.minute)}:` +
    `${pad(parts.second)}${parts.fraction}${zone}`
  );
}

describe('the timestamptz parser', () => {
  it('gives the same instant as pg’s own parser for every ISO-style value', () => {
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 100, max: 9999 }),
          month: fc.integer({ min: 1, max: 12 }),
          day: fc.integer({ min: 1, max: 28 }),
          hour: fc.integer({ min: 0, max: 23 }),
          minute: fc.integer({ min: 0, max: 59 }),
          second: fc.integer({ min: 0, max: 59 }),
          fraction: fc.oneof(fc.constant(''), fc.stringMatching(/^\.[0-9]{1,6}$/)),
          sign: fc.constantFrom('+' as const, '-' as const),
          offsetHours: fc.integer({ min: 0, max: 15 }),
          offsetMinutes: fc.constantFrom(0, 30, 45),
          offsetSeconds: fc.constantFrom(0, 0, 0, 8),
        }),
        (parts) => {
          const text = written(parts);
          const fast = parseTimestamptz(text);
          const slow = parseTimestamptzSlowly(text);
          expect(fast instanceof Date && slow instanceof Date).toBe(true);
          expect((fast as Date).getTime()).toBe((slow as Date).getTime());
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('reads a value repeated among others as pg does, each time into a Date of its own', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom('2025-01-01 00:00:23+00', '2025-01-01 00:00:23.5+10', '1999-12-31 23:59:59.999999-03:30'),
          {
            minLength: 2,
            maxLength: 12,
          },
        ),
        (texts) => {
          let previous: Date | undefined;
          for (const text of texts) {
            const fast = parseTimestamptz(text) as Date;
            expect(fast.getTime()).toBe((parseTimestamptzSlowly(text) as Date).getTime());
            expect(fast).not.toBe(previous);
            // A reader that changes its Date changes no other reader's.
            previous?.setTime(0);
            previous = fast;
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each(['infinity', '-infinity', '0099-01-01 00:00:00+00', '2020-01-01 00:00:00+00 BC', '12020-01-01 00:00:00+00'])(
    'leaves %s to pg’s own parser',
    (text) => {
      const fast = parseTimestamptz(text);
      const slow = parseTimestamptzSlowly(text);
      expect(fast instanceof Date ? fast.getTime() : fast).toEqual(slow instanceof Date ? slow.getTime() : slow);
    },
  );
});

describe('the timestamp writer of records', () => {
  const year0 = new Date('0000-01-01T00:00:00.000Z').getTime();
  const year10000 = new Date('+010000-01-01T00:00:00.000Z').getTime();

  it('writes what toISOString writes, for any millisecond of the years 0000 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: year0, max: year10000 - 1 }), (ms) => {
        expect(isoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 5000 },
    );
  });

  it('writes the same at the edges: years, leap days, the epoch, the last millisecond of a day', () => {
    const edges = [
      year0,
      year10000 - 1,
      0,
      -1,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(1900, 1, 28, 23, 59, 59, 999),
      Date.UTC(1900, 2, 1),
      Date.UTC(2100, 1, 28, 12),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(2025, 0, 1),
      Date.UTC(1969, 11, 31, 0, 0, 0, 1),
    ];
    // In order and back again: consecutive dates on one day and across days.
    for (const ms of [...edges, ...edges.reverse()])
      expect(isoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it('writes a timestamp repeated among others as toISOString does', () => {
    const instants = [Date.UTC(2025, 0, 1, 0, 0, 23), Date.UTC(2025, 0, 1, 0, 0, 23, 1), 0, year10000];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...instants), { minLength: 2, maxLength: 12 }), (sequence) => {
        for (const ms of sequence) expect(isoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 500 },
    );
  });

  it('leaves years outside 0000-9999 and invalid dates to toISOString', () => {
    for (const ms of [year0 - 1, year10000, 8.64e15, -8.64e15])
      expect(isoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
