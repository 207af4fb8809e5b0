import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseTimestamptz, parseTimestamptzSlowly } from '../../src/database/pg-types.js';

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
      { numRuns: 20_000 },
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
