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

  /** Takes one token; returns the event it completes, if any (a plain function: called per token). */
  function handle(token: Token): ReaderEvent | undefined {
    if (rejected) return undefined;
    if (skipping > 0) {
      if (token.name === 'startObject' || token.name === 'startArray') skipping++;
      else if (token.name === 'endObject' || token.name === 'endArray') skipping--;
      return undefined;
    }
    if (assembler !== null) {
      assembler.consume(token);
      if (assembler.done) {
        const record: ReaderEvent = {
          kind: 'record',
          section: section ?? '',
          index: index++,
          value: assembler.current,
        };
        assembler = null;
        return record;
      }
      return undefined;
    }
    if (level === 0) {
      if (token.name === 'startObject') level = 1;
      else {
        rejected = true;
        return { kind: 'problem', path: [], message: 'must be a JSON object with the sections of the import format' };
      }
      return undefined;
    }
    if (level === 1) {
      if (token.name === 'keyValue') {
        key = token.value;
        return undefined;
      }
      if (token.name === 'endObject') {
        level = 0;
        return undefined;
      }
      const name = key ?? '';
      const opens = token.name === 'startObject' || token.name === 'startArray';
      if (token.name === 'startArray' && isSection(name)) {
        level = 2;
        section = name;
        index = 0;
        return undefined;
      }
      if (opens) skipping = 1;
      if (!isSection(name)) return { kind: 'problem', path: [name], message: 'is not a section of the import format' };
      return {
        kind: 'problem',
        path: [name],
        message: token.name === 'nullValue' ? 'must not be null' : 'must be an array',
      };
    }
    // level 2: an element of a section array, or its end.
    if (token.name === 'endArray') {
      level = 1;
      section = null;
      return undefined;
    }
    assembler = new Assembler();
    assembler.consume(token);
    if (!assembler.done) return undefined;
    const record: ReaderEvent = { kind: 'record', section: section ?? '', index: index++, value: assembler.current };
    assembler = null;
    return record;
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
    for (const token of tokens) {
      const event = handle(token);
      if (event !== undefined) yield event;
    }
  }

  for await (const chunk of text) {
    yield* feed(chunk);
    if (rejected) return;
  }
  yield* feed(none);
}
