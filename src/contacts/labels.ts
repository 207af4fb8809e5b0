/**
 * Label formatting of phone and financial rows, as the original service did with PHP's `ucfirst` and `ucwords`:
 * only the first letter (of the text, or of each whitespace-separated word) is upper-cased;
 * the other letters are left as stored.
 */
export function upperFirst(text: string): string {
  return text.replace(/^./su, (letter) => letter.toUpperCase());
}

export function capitaliseWords(text: string): string {
  return text.replace(/(^|\s)(\S)/gu, (_match, space: string, letter: string) => space + letter.toUpperCase());
}
