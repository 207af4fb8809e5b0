/** One element of a top-level section array, as `JSON.parse` gives it. */
export interface SectionRecord {
  readonly kind: 'record';
  readonly section: string;
  readonly index: number;
  readonly value: unknown;
  /** Characters of the element's JSON text: a cheap measure of the record's size. */
  readonly chars: number;
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

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COMMA = 44;
const COLON = 58;

function isWhitespace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** Where the scanner is in the document's outer shape. */
type Mode =
  /** Before the document's value. */
  | 'document'
  /** In the top-level object: a key, or its end (`keyRequired`: after a comma, only a key). */
  | 'key'
  | 'colon'
  /** The value of a top-level key. */
  | 'member'
  | 'afterMember'
  /** In a section array: an element, or its end (`elementRequired`: after a comma). */
  | 'element'
  | 'afterElement'
  /** After the document: only whitespace. */
  | 'end';

/** What the value being scanned is for. */
type Purpose = 'key' | 'element' | 'skip';

const describe = (code: number | undefined): string =>
  code === undefined ? 'end of input' : JSON.stringify(String.fromCharCode(code));

/**
 * Splits the import file's JSON text into its top-level keys and the elements of its section
 * arrays without building any token: the outer shape is checked here, character by character,
 * and each element's text (found by counting brackets outside strings) is given to `JSON.parse`,
 * which checks the rest. Holds the current element's text and one chunk at most.
 */
class SectionScanner {
  private buf = '';
  private pos = 0;
  private mode: Mode = 'document';
  private required = false;
  private key = '';
  private section: string | null = null;
  private index = 0;
  /** The value being scanned: where it starts in `buf`, what it is for and how far it was read. */
  private value: { start: number; purpose: Purpose; scanned: number; depth: number; inString: boolean } | null = null;
  private scalar = false;
  rejected = false;

  constructor(private readonly isSection: (key: string) => boolean) {}

  /** The events the chunk completes. */
  *push(chunk: string): Generator<ReaderEvent> {
    this.buf = this.pos === 0 ? this.buf + chunk : this.buf.slice(this.pos) + chunk;
    if (this.value !== null) {
      this.value.start -= this.pos;
      this.value.scanned -= this.pos;
    }
    this.pos = 0;
    yield* this.run(false);
  }

  *end(): Generator<ReaderEvent> {
    yield* this.run(true);
    if (this.rejected) return;
    if (this.mode !== 'end') throw new InvalidJson(`unexpected ${describe(undefined)}`);
  }

  private unexpected(at: number): InvalidJson {
    const code = at < this.buf.length ? this.buf.charCodeAt(at) : undefined;
    return new InvalidJson(`unexpected ${describe(code)} in the file's outer object`);
  }

  private *run(ended: boolean): Generator<ReaderEvent> {
    const buf = this.buf;
    while (!this.rejected) {
      if (this.value !== null) {
        const end = this.scanValue(ended);
        if (end < 0) break;
        const event = this.complete(end);
        if (event !== undefined) yield event;
        continue;
      }
      let pos = this.pos;
      while (pos < buf.length && isWhitespace(buf.charCodeAt(pos))) pos++;
      this.pos = pos;
      if (pos >= buf.length) break;
      const code = buf.charCodeAt(pos);
      switch (this.mode) {
        case 'document':
          if (code !== OPEN_OBJECT) {
            this.rejected = true;
            yield {
              kind: 'problem',
              path: [],
              message: 'must be a JSON object with the sections of the import format',
            };
            return;
          }
          this.pos++;
          this.mode = 'key';
          this.required = false;
          break;
        case 'key':
          if (code === CLOSE_OBJECT && !this.required) {
            this.pos++;
            this.mode = 'end';
          } else if (code === QUOTE) this.startValue('key');
          else throw this.unexpected(pos);
          break;
        case 'colon':
          if (code !== COLON) throw this.unexpected(pos);
          this.pos++;
          this.mode = 'member';
          break;
        case 'member': {
          const name = this.key;
          if (code === OPEN_ARRAY && this.isSection(name)) {
            this.pos++;
            this.mode = 'element';
            this.required = false;
            this.section = name;
            this.index = 0;
            break;
          }
          this.startValue('skip');
          break;
        }
        case 'afterMember':
          if (code === COMMA) {
            this.mode = 'key';
            this.required = true;
          } else if (code === CLOSE_OBJECT) this.mode = 'end';
          else throw this.unexpected(pos);
          this.pos++;
          break;
        case 'element':
          if (code === CLOSE_ARRAY && !this.required) {
            this.pos++;
            this.mode = 'afterMember';
            this.section = null;
          } else this.startValue('element');
          break;
        case 'afterElement':
          if (code === COMMA) {
            this.mode = 'element';
            this.required = true;
          } else if (code === CLOSE_ARRAY) {
            this.mode = 'afterMember';
            this.section = null;
          } else throw this.unexpected(pos);
          this.pos++;
          break;
        case 'end':
          throw this.unexpected(pos);
      }
    }
  }

  private startValue(purpose: Purpose): void {
    const code = this.buf.charCodeAt(this.pos);
    this.scalar = code !== OPEN_OBJECT && code !== OPEN_ARRAY && code !== QUOTE;
    this.value = { start: this.pos, purpose, scanned: this.pos, depth: 0, inString: false };
  }

  /** The end (exclusive) of the value being scanned, or -1 when the input so far holds no end. */
  private scanValue(ended: boolean): number {
    const value = this.value as NonNullable<SectionScanner['value']>;
    const buf = this.buf;
    let i = value.scanned;
    if (this.scalar) {
      while (i < buf.length) {
        const code = buf.charCodeAt(i);
        if (code === COMMA || code === CLOSE_ARRAY || code === CLOSE_OBJECT || isWhitespace(code)) return i;
        i++;
      }
      value.scanned = i;
      return ended ? i : -1;
    }
    let { depth, inString } = value;
    while (i < buf.length) {
      if (inString) {
        const quote = buf.indexOf('"', i);
        if (quote < 0) {
          i = buf.length;
          break;
        }
        let before = quote - 1;
        while (buf.charCodeAt(before) === BACKSLASH) before--;
        i = quote + 1;
        // An odd number of backslashes escapes the quote.
        if ((quote - 1 - before) % 2 === 0) {
          inString = false;
          if (depth === 0) return i;
        }
        continue;
      }
      const code = buf.charCodeAt(i++);
      if (code === QUOTE) inString = true;
      else if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth++;
      else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
        if (--depth === 0) return i;
      }
    }
    value.scanned = i;
    value.depth = depth;
    value.inString = inString;
    return -1;
  }

  private parse(text: string): unknown {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new InvalidJson(error instanceof Error ? error.message : String(error));
    }
  }

  /** The value ends at `end`: moves on, and returns the record it is, if any. */
  private complete(end: number): ReaderEvent | undefined {
    const { start, purpose } = this.value as NonNullable<SectionScanner['value']>;
    this.value = null;
    this.pos = end;
    const text = this.buf.slice(start, end);
    if (purpose === 'key') {
      this.key = this.parse(text) as string;
      this.mode = 'colon';
      return undefined;
    }
    const parsed = this.parse(text);
    if (purpose === 'skip') {
      this.mode = 'afterMember';
      const message = !this.isSection(this.key)
        ? 'is not a section of the import format'
        : parsed === null
          ? 'must not be null'
          : 'must be an array';
      return { kind: 'problem', path: [this.key], message };
    }
    this.mode = 'afterElement';
    return { kind: 'record', section: this.section ?? '', index: this.index++, value: parsed, chars: text.length };
  }
}

/**
 * Reads the import file's top-level object as a stream of section records, holding one record
 * in memory at a time. `isSection` decides which top-level keys are sections; any other key, a
 * section that is not an array, or a file that is not an object becomes a ShapeProblem.
 */
export async function* readSectionRecords(
  text: AsyncIterable<string> | Iterable<string>,
  isSection: (key: string) => boolean,
): AsyncGenerator<ReaderEvent> {
  const scanner = new SectionScanner(isSection);
  for await (const chunk of text) {
    yield* scanner.push(chunk);
    if (scanner.rejected) return;
  }
  yield* scanner.end();
}
