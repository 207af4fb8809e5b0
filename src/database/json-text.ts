import { randomBytes } from 'node:crypto';

/**
 * A value already written as JSON (by PostgreSQL: a record, or its nested rows), held as its text so an
 * answer can carry it verbatim instead of parsing it into objects only to write them back.
 * The text is in JSON.stringify's own form (no spaces, the same escapes), so writing it as it is
 * and writing its parsed value give the same bytes.
 *
 * Anything that serialises with `serialiseJson` splices the text in; anything else (plain
 * JSON.stringify, the v1 casing, a test reading a record) sees the parsed value through `toJSON`
 * or `value()`.
 */
export class JsonText<T = unknown> {
  /** The type of the parsed value (for the compiler only). */
  declare readonly parsed?: T;

  constructor(readonly text: string) {}

  /** The parsed value (a new copy each time: callers may change it). */
  value(): T {
    return JSON.parse(this.text) as T;
  }

  toJSON(): unknown {
    return splicing ? splicing.placeholderOf(this) : this.value();
  }
}

/** A record held as its JSON text, with its id (what the readers of records look up). */
export class RecordJson<T extends { id: string }> extends JsonText<T> {
  constructor(
    readonly id: string,
    text: string,
  ) {
    super(text);
  }
}

/** A record type as its JSON reads: each JsonText<T> in it as T (what its schema class declares). */
export type Parsed<R> = { [K in keyof R]: R[K] extends JsonText<infer T> ? T : R[K] };

/** The JsonTexts met while one value is serialised, each written first as a placeholder string. */
class Splice {
  readonly texts: string[] = [];

  placeholderOf(fragment: JsonText): string {
    this.texts.push(fragment.text);
    return `${PLACEHOLDER_PREFIX}${this.texts.length - 1}`;
  }
}

/**
 * Placeholders start with a NUL and a secret of this process: JSON.stringify writes them as
 * `"\u0000<secret>:<n>"`. Text from PostgreSQL cannot hold a NUL, and no client can write a
 * string that serialises to one without knowing the secret; each placeholder is also looked for
 * only where the one before it ended, in order.
 */
const PLACEHOLDER_PREFIX = `\u0000${randomBytes(12).toString('hex')}:`;
const WRITTEN_PREFIX = `"${JSON.stringify(PLACEHOLDER_PREFIX).slice(1, -1)}`;

let splicing: Splice | undefined;

/**
 * The JSON of `value` as serialiseJson writes it, in order: the text JSON.stringify wrote between
 * the JsonTexts, and each JsonText's text.
 */
function serialisedPieces(value: unknown): string[] {
  const outer = splicing;
  const splice = new Splice();
  splicing = splice;
  let written: string;
  try {
    written = JSON.stringify(value);
  } finally {
    splicing = outer;
  }
  if (splice.texts.length === 0) return [written];
  const pieces: string[] = [];
  let from = 0;
  for (let i = 0; i < splice.texts.length; i++) {
    const placeholder = `${WRITTEN_PREFIX}${i}"`;
    const at = written.indexOf(placeholder, from);
    if (at < 0) throw new Error('serialiseJson: a JSON text was written out of order');
    pieces.push(written.slice(from, at), splice.texts[i] ?? '');
    from = at + placeholder.length;
  }
  pieces.push(written.slice(from));
  return pieces;
}

/**
 * JSON.stringify, with every JsonText inside the value written as its text. The same bytes as
 * JSON.stringify of the parsed values, without building them.
 */
export function serialiseJson(value: unknown): string {
  return serialisedPieces(value).join('');
}

/**
 * serialiseJson's bytes as an answer's body: with JsonTexts spliced in, written piece by piece
 * into one buffer (UTF-8), never joined into one string first. A string of a large page (a
 * megabyte for 500 people) is written to the heap once more to be joined, again to be measured
 * and again to be encoded; on a virtual machine the fresh pages that takes cost more than the
 * copying. Without JsonTexts, the string JSON.stringify wrote.
 */
export function serialiseJsonBody(value: unknown): string | Buffer {
  const pieces = serialisedPieces(value);
  if (pieces.length === 1) return pieces[0] ?? '';
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += body.write(piece, at);
  return body;
}
