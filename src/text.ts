// Text helpers every layer may import (it imports nothing).
//
// Text that is echoed (a user's input in an error) or relayed (a server's message, an exec
// plugin's output) must stay on one line: one event is one line in Manager's job log, and
// a newline in a variable name or a Status message must not be able to forge a second one.
// These helpers are the only place that rule lives.

// C0 controls, DEL, C1 controls (U+0085 NEL among them), and the Unicode line and
// paragraph separators, which some log viewers and JavaScript itself treat as line breaks.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(char: string): string {
  return NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` with every control character written as an escape (`\n`, `\u001b`, ...). */
export function escapeControlCharacters(text: string): string {
  CONTROL.lastIndex = 0;
  return CONTROL.test(text) ? text.replace(CONTROL, escapeOne) : text;
}

/** True when `text` holds a character that escapeControlCharacters() would escape. */
export function hasControlCharacters(text: string): boolean {
  CONTROL.lastIndex = 0;
  return CONTROL.test(text);
}

/**
 * A relayed message as one line: runs of blanks and line breaks become one space (a
 * kubelet's multi-line error stays readable), the rest of the control characters are
 * escaped, and the ends are trimmed.
 */
export function oneLine(text: string | undefined): string {
  if (!text) return '';
  return escapeControlCharacters(text.replace(/[\s\u0085]+/g, ' ').trim());
}

/**
 * JSON.stringify(value) as one safe line: JSON escapes C0 controls itself, but leaves DEL,
 * the C1 controls and U+2028/U+2029 raw; they are written as \u escapes (still valid JSON).
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// ANSI/VT escape sequences: CSI (`ESC [ ... final`), OSC (`ESC ] ... BEL or ESC \`), and the
// two-character ones (`ESC c`, the terminal reset systemd prints, among them).
// eslint-disable-next-line no-control-regex -- matching escape sequences is the point
const TERMINAL_CODES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_`-~]|\u009b[0-?]*[ -/]*[@-~]/g;

/**
 * What a terminal would show of `text`: its colour, cursor and reset codes removed, and the
 * carriage returns a terminal's line ends carry. A console's words, not its escape codes.
 */
export function stripTerminalCodes(text: string): string {
  return text.replace(TERMINAL_CODES, '').replace(/\r/g, '');
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONSOLE_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * One line of a terminal's output (a console, a tty container's log) as a plain line: the
 * escape sequences (colours, cursor moves, titles) removed, a carriage return keeps what
 * follows it (what the terminal showed last), and the other control characters but tab
 * dropped.
 */
export function consoleLine(line: string): string {
  const visible = line.replace(TERMINAL_CODES, '');
  const trimmed = visible.endsWith('\r') ? visible.replace(/\r+$/, '') : visible;
  const lastReturn = trimmed.lastIndexOf('\r');
  return (lastReturn === -1 ? trimmed : trimmed.slice(lastReturn + 1)).replace(CONSOLE_CONTROL, '');
}
