/** C0 and C1 control characters and DEL: never part of a URL, a one-line text or a printed cell. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

export function hasControlCharacters(text: string): boolean {
  CONTROL_CHARACTERS.lastIndex = 0;
  return CONTROL_CHARACTERS.test(text);
}

/**
 * The text with its control characters escaped (`\t`, `\n`, `\u001b`, ...), so a stored value can
 * neither forge a row or column nor send escape sequences to a terminal.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (c) => JSON.stringify(c).slice(1, -1));
}
