import { describe, expect, it } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import { NotModifiedException } from '../../src/common/http/conditional/entity-tag.js';
import { CachedPageAnswer } from '../../src/common/http/conditional/page-cache.js';

const frames = (error: Error) => (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));

describe('early answers (304, kept page)', () => {
  it('capture no stack trace, and leave the limit as it was for every other error', () => {
    const limit = Error.stackTraceLimit;
    const answers = [new NotModifiedException('W/"t"'), new CachedPageAnswer('W/"t"', { body: Buffer.from('{}') })];
    for (const answer of answers) {
      expect(answer).toBeInstanceOf(HttpException);
      expect(frames(answer)).toEqual([]);
    }
    expect(answers.map((a) => a.getStatus())).toEqual([304, 200]);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(frames(new HttpException('Bad', 400)).length).toBeGreaterThan(0);
  });
});
