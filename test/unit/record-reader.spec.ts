import { describe, expect, it } from '@jest/globals';
import { InvalidJson, readSectionRecords, type ReaderEvent } from '../../src/cli/import/record-reader.js';

const SECTIONS = new Set(['people', 'leads']);
const isSection = (key: string): boolean => SECTIONS.has(key);

/** The text in chunks of `size` characters (the last may be shorter). */
function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function read(parts: string[]): Promise<ReaderEvent[]> {
  const events: ReaderEvent[] = [];
  for await (const event of readSectionRecords(parts, isSection)) events.push(event);
  return events;
}

/** Every way of cutting the text that matters: one piece, and pieces of 1 to 9 characters. */
const CUTS = [Infinity, 1, 2, 3, 4, 5, 6, 7, 8, 9];

async function readEveryCut(text: string): Promise<ReaderEvent[]> {
  const [first, ...rest] = await Promise.all(
    CUTS.map((size) => read(chunks(text, size === Infinity ? text.length || 1 : size))),
  );
  for (const events of rest) expect(events).toEqual(first);
  return first ?? [];
}

const records = (events: ReaderEvent[]) =>
  events.map((event) => (event.kind === 'record' ? [event.section, event.index, event.value] : event));

describe('the import file reader', () => {
  it('gives each element of each section as JSON.parse would, however the text is cut', async () => {
    const doc = {
      people: [
        { id: 'a', name: 'quote " and backslash \\', nested: [{ x: [1, 2, { y: '}]' }] }], n: -1.5e3 },
        { id: 'b', text: 'ends with a backslash \\\\', escaped: '\\"', unicode: 'é \u2028 😀' },
        'a string element with ] and }',
        42,
        null,
        true,
        [],
      ],
      leads: [{ id: 'c', empty: {}, list: [] }],
    };
    const text = `  ${JSON.stringify(doc, null, 1)}\n`;
    const events = await readEveryCut(text);
    expect(records(events)).toEqual([
      ...doc.people.map((value, index) => ['people', index, value]),
      ['leads', 0, doc.leads[0]],
    ]);
    const [first] = events;
    expect(first?.kind === 'record' && first.chars).toBe(
      JSON.stringify(doc.people[0], null, 1).replaceAll('\n', '\n  ').length,
    );
  });

  it('reports keys that are not sections and sections that are not arrays, and reads on', async () => {
    const text = '{"other": {"people": [1]}, "people": null, "leads": {"a": 1}, "x": "y", "people": [{"id": 1}]}';
    expect(records(await readEveryCut(text))).toEqual([
      { kind: 'problem', path: ['other'], message: 'is not a section of the import format' },
      { kind: 'problem', path: ['people'], message: 'must not be null' },
      { kind: 'problem', path: ['leads'], message: 'must be an array' },
      { kind: 'problem', path: ['x'], message: 'is not a section of the import format' },
      ['people', 0, { id: 1 }],
    ]);
  });

  it('refuses a document that is not an object, and reads no further', async () => {
    expect(await readEveryCut('[{"people": []}] garbage')).toEqual([
      { kind: 'problem', path: [], message: 'must be a JSON object with the sections of the import format' },
    ]);
  });

  it.each([
    ['an empty input', ''],
    ['an unfinished object', '{"people": [{"id": 1}'],
    ['an unfinished string', '{"people": [{"id": "a'],
    ['a missing comma between elements', '{"people": [{"id": 1} {"id": 2}]}'],
    ['a trailing comma in a section', '{"people": [{"id": 1},]}'],
    ['a trailing comma in the object', '{"people": [],}'],
    ['a missing colon', '{"people" []}'],
    ['a key that is not a string', '{people: []}'],
    ['an element that is not JSON', '{"people": [{"id": 1,}]}'],
    ['a bare word', '{"people": [nope]}'],
    ['text after the document', '{"people": []} {}'],
    ['mismatched brackets', '{"people": [{"id": [1}]]}'],
  ])('throws InvalidJson for %s', async (_name, text) => {
    for (const size of CUTS) {
      const parts = chunks(text, size === Infinity ? text.length || 1 : size);
      await expect(read(parts)).rejects.toBeInstanceOf(InvalidJson);
    }
  });
});
