import { labelFormatDigit } from '../database/json-labels.js';

/**
 * Label formatting of phone and financial rows, as the original service did with PHP's `ucfirst` and `ucwords`:
 * only the first letter (of the text, or of each whitespace-separated word) is upper-cased;
 * the other letters are left as stored.
 *
 * Labels repeat across rows (a handful of types and categories), so each function remembers the
 * labels it formatted last: a list page formats hundreds of them.
 */

/** Distinct labels remembered per function; past this the memory starts again. */
const REMEMBERED = 1000;

function remembering(format: (text: string) => string): (text: string) => string {
  const formatted = new Map<string, string>();
  return (text) => {
    let label = formatted.get(text);
    if (label === undefined) {
      label = format(text);
      if (formatted.size >= REMEMBERED) formatted.clear();
      formatted.set(text, label);
    }
    return label;
  };
}

export const upperFirst = remembering((text) => text.replace(/^./su, (letter) => letter.toUpperCase()));

export const capitaliseWords = remembering((text) =>
  text.replace(/(^|\s)(\S)/gu, (_match, space: string, letter: string) => space + letter.toUpperCase()),
);

// A row's stored JSON holds its labels' format digits: numbered here, in this order, so that
// every process (the service, the CLI) numbers them alike whichever module asks first.
for (const format of [upperFirst, capitaliseWords]) labelFormatDigit(format);
