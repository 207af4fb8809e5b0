import Assembler from 'stream-json/assembler.js';
import { jsonParser, type Token } from 'stream-json/parser.js';
import { isMany, none } from 'stream-chain/defs.js';

/** One element of a top-level section array, assembled like `JSON.parse` would. */
export interface SectionRecord {
  readonly kind: 'record';
  readonly section: string;
  readonly index: number;
  readonly value: unknown;
}

/** A problem with the file's outer shape (not a record's content). */
export interface ShapeProblem {
  readonly kind: 'problem';
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** The file is not JSON; nothing after this event is read. */
export class InvalidJson extends Error {}

export type ReaderEvent = SectionRecord | ShapeProblem;

/**
 * Reads the import file's top-level object as a stream of section records, holding one record
 * in memory at a time. `isSection` decides which top-level keys are sections; any other key, a
 * section that is not an array, or a file that is not an object becomes a ShapeProblem.
 */
export async function* readSectionRecords(
  text: AsyncIterable<string> | Iterable<string>,
  isSection: (key: string) => boolean,
): AsyncGenerator<ReaderEvent> {
  const parse = jsonParser({ packValues: true, streamValues: false });
  // 0: before the document; 1: in the top-level object; 2: in a section array.
  let level = 0;
  let key: string | null = null;
  let section: string | null = null;
  let index = 0;
  let assembler: Assembler | null = null;
  /** Depth of a value being skipped (an unknown section or a section that is not an array). */
  let skipping = 0;
  let rejected = false;

  function* handle(token: Token): Generator<ReaderEvent> {
    if (rejected) return;
    if (skipping > 0) {
      if (token.name === 'startObject' || token.name === 'startArray') skipping++;
      else if (token.name === 'endObject' || token.name === 'endArray') skipping--;
      return;
    }
    if (assembler !== null) {
      assembler.consume(token);
      if (assembler.done) {
        yield { kind: 'record', section: section ?? '', index: index++, value: assembler.current };
        assembler = null;
      }
      return;
    }
    if (level === 0) {
      if (token.name === 'startObject') level = 1;
      else {
        rejected = true;
        yield { kind: 'problem', path: [], message: 'must be a JSON object with the sections of the import format' };
      }
      return;
    }
    if (level === 1) {
      if (token.name === 'keyValue') {
        key = token.value;
        return;
      }
      if (token.name === 'endObject') {
        level = 0;
        return;
      }
      const name = key ?? '';
      const opens = token.name === 'startObject' || token.name === 'startArray';
      if (!isSection(name)) {
        yield { kind: 'problem', path: [name], message: 'is not a section of the import format' };
        if (opens) skipping = 1;
      } else if (token.name === 'startArray') {
        level = 2;
        section = name;
        index = 0;
      } else {
        const message = token.name === 'nullValue' ? 'must not be null' : 'must be an array';
        yield { kind: 'problem', path: [name], message };
        if (opens) skipping = 1;
      }
      return;
    }
    // level 2: an element of a section array, or its end.
    if (token.name === 'endArray') {
      level = 1;
      section = null;
      return;
    }
    assembler = new Assembler();
    assembler.consume(token);
    if (assembler.done) {
      yield { kind: 'record', section: section ?? '', index: index++, value: assembler.current };
      assembler = null;
    }
  }

  function* feed(input: string | typeof none): Generator<ReaderEvent> {
    let result: ReturnType<typeof parse>;
    try {
      result = parse(input as string);
    } catch (error) {
      throw new InvalidJson(error instanceof Error ? error.message : String(error));
    }
    if (result === none) return;
    const tokens = isMany(result) ? result.values : [result as unknown as Token];
    for (const token of tokens) yield* handle(token);
  }

  for await (const chunk of text) {
    yield* feed(chunk);
    if (rejected) return;
  }
  yield* feed(none);
}
