import { describe, expect, it } from '@jest/globals';
import { RepeatedWarnings, type WarningLogger } from '../../src/logging/repeated-warnings.js';

class RecordingLogger implements WarningLogger {
  readonly lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  warn(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ level: 'warn', fields, message });
  }
  debug(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ level: 'debug', fields, message });
  }
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('RepeatedWarnings', () => {
  it('writes a warning once per interval and cause, then says how many it left out', () => {
    const logger = new RecordingLogger();
    let now = 0;
    const warnings = new RepeatedWarnings(logger, 60_000, () => now);
    for (let i = 0; i < 50; i++, now += 100) warnings.warn('poll failed', refused);
    warnings.warn('poll failed', new Error('another cause'));
    now = 60_000;
    warnings.warn('poll failed', refused);

    const warned = logger.lines.filter((line) => line.level === 'warn');
    expect(warned.map((line) => line.fields)).toEqual([
      { error: { type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' } },
      { error: { type: 'Error', message: 'another cause' } },
      {
        error: { type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' },
        repeated: 49,
        repeated_within_ms: 60_000,
      },
    ]);
    // The stack goes to debug only, once per written warning.
    expect(logger.lines.filter((line) => line.level === 'debug').map((line) => line.fields.err)).toEqual([
      refused,
      expect.any(Error),
      refused,
    ]);
  });

  it('forgets kinds older than the interval once it holds many, so messages with ids do not pile up', () => {
    const logger = new RecordingLogger();
    let now = 0;
    const warnings = new RepeatedWarnings(logger, 60_000, () => now);
    for (let i = 0; i < 150; i++) warnings.warn('lookup failed', new Error(`row ${i} missing`));
    now = 60_000;
    warnings.warn('lookup failed', new Error('row 0 missing'));
    now = 60_001;
    // Past the interval, the 100 kinds were dropped when the next new kind came: a kind seen
    // again is written at once, with no count of the meantime (it was forgotten).
    warnings.warn('lookup failed', new Error('row 1 missing'));
    const last = logger.lines.filter((line) => line.level === 'warn').at(-1);
    expect(last?.fields).toEqual({ error: { type: 'Error', message: 'row 1 missing' } });
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(152);
  });
});
