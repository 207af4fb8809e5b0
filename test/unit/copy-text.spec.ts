import { describe, expect, it } from '@jest/globals';
import { CopyText } from '../../src/cli/import/staging.js';

const text = (chunks: readonly Buffer[]): string => Buffer.concat(chunks).toString('utf8');

function filled(prefix: string, lines: number): { copy: CopyText; expected: string } {
  const copy = new CopyText();
  let expected = '';
  for (let i = 0; i < lines; i++) {
    const line = `${prefix}-${i}\tRéféré 🚗 ${'x'.repeat(i % 97)}\n`;
    copy.add(line);
    expected += line;
  }
  return { copy, expected };
}

describe('COPY text in reused buffers', () => {
  it('keeps a batch intact while others are written, until it is released', () => {
    const first = filled('first', 3000);
    const taken = first.copy.take();
    const second = filled('second', 3000);
    const secondTaken = second.copy.take();
    expect(text(taken)).toBe(first.expected);
    expect(text(secondTaken)).toBe(second.expected);
    const firstBuffers = new Set(taken.map((chunk) => chunk.buffer));
    expect(secondTaken.some((chunk) => firstBuffers.has(chunk.buffer))).toBe(false);
  });

  it('reuses the buffers of a released batch for the next text', () => {
    const first = filled('first', 3000);
    const taken = first.copy.take();
    CopyText.release(taken);
    const next = filled('next', 3000);
    const nextTaken = next.copy.take();
    expect(text(nextTaken)).toBe(next.expected);
    const released = new Set(taken.map((chunk) => chunk.buffer));
    expect(nextTaken.some((chunk) => released.has(chunk.buffer))).toBe(true);
  });

  it('gives a text longer than a buffer a chunk of its own, and counts the lines', () => {
    const copy = new CopyText();
    const long = `${'é'.repeat(40_000)}\n`;
    copy.add('a\n');
    copy.add(long);
    copy.add('b\n');
    expect(copy.rowCount).toBe(3);
    expect(text(copy.take())).toBe(`a\n${long}b\n`);
    expect(copy.rowCount).toBe(0);
  });
});
