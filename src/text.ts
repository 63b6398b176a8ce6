// Text helpers every layer may import (it imports nothing).

/** Collapses every whitespace run, newlines included, to one space: one event, one line. */
export function oneLine(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

// C0 and C1 controls, DEL, and the two Unicode line and paragraph separators: anything a
// terminal, a log store or a line splitter may treat as a line break or a command.
const CONTROL_CHARACTERS = /[\p{Cc}\u2028\u2029]/gu;
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Escapes control characters the way JSON would (`\n`, `\t`, `\u001b`), so that text
 * from elsewhere (a kubelet message, an error) printed on one line stays one line and
 * cannot move a terminal's cursor. Printable text, Unicode included, is unchanged.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (char) => NAMED_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
