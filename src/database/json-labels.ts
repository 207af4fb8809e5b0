/**
 * Labels in JSON written by PostgreSQL are formatted here, by the JS functions that are their one
 * definition: the SQL writes each label as a marker byte (1, which text from PostgreSQL only ever
 * holds escaped), the digit of its format, then the label as a JSON string; `formatLabels`
 * replaces each with the formatted label. Labels repeat (a handful of types and categories), so
 * their written forms are remembered.
 */

type Format = (text: string) => string;

const formats: Format[] = [];

/** The digit naming this format in the SQL's markers (at most ten formats). */
export function labelFormatDigit(format: Format): number {
  let digit = formats.indexOf(format);
  if (digit < 0) {
    if (formats.length === 10) throw new Error('json-labels: at most ten label formats');
    digit = formats.push(format) - 1;
  }
  return digit;
}

/** SQL of a label's marker: the marker byte and its format's digit. */
export function labelMarkerSql(format: Format): string {
  return `chr(1) || '${labelFormatDigit(format)}'`;
}

/** SQL writing a text column as a marked label (`null` for NULL). */
export function jsonLabelSql(column: string, format: Format): string {
  return `coalesce(${labelMarkerSql(format)} || to_json(${column})::text, 'null')`;
}

// eslint-disable-next-line no-control-regex -- the marker is a control character on purpose.
const MARKED = /\u0001(\d)("(?:[^"\\]|\\.)*")/g;
const REMEMBERED = 1000;
const written = new Map<string, string>();

function formatted(marked: string, digit: string, label: string): string {
  let out = written.get(marked);
  if (out === undefined) {
    const format = formats[Number(digit)];
    if (!format) throw new Error(`json-labels: no format ${digit}`);
    out = JSON.stringify(format(JSON.parse(label) as string));
    if (written.size >= REMEMBERED) written.clear();
    written.set(marked, out);
  }
  return out;
}

/** The JSON text with every marked label formatted. */
export function formatLabels(json: string): string {
  return json.includes('\u0001') ? json.replace(MARKED, formatted) : json;
}
