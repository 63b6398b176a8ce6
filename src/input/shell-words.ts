// Split one command line into argv words the way a POSIX shell would, minus everything
// that makes a shell a shell: no variable, command, tilde or glob expansion, no operators
// (`;`, `|`, `&`, `<`, `>` are ordinary characters) and no comments (`#` is ordinary).
//
// Why: Manager stores a container's entrypoint as ONE string (the image's Entrypoint and
// Cmd joined with a space), while Kubernetes wants an argv array. Splitting on spaces
// would break `sh -c 'echo hello world'`; honouring quotes keeps such commands intact.

import { ShellWordsError } from '../errors/input.js';

// Blanks that separate words. POSIX uses space, tab and newline; a carriage return is
// treated the same so a line pasted from a CRLF file does not end in an invisible `\r`.
const isBlank = (char: string): boolean => char === ' ' || char === '\t' || char === '\n' || char === '\r';

// Inside double quotes a backslash only escapes these; before anything else it is literal.
const DOUBLE_QUOTE_ESCAPABLE = new Set(['\\', '"', '$', '`']);

interface Cursor {
  readonly line: string;
  index: number;
}

/** Reads a single-quoted part (cursor on the opening quote); everything inside is literal. */
function readSingleQuoted(cursor: Cursor): string {
  const start = cursor.index;
  const end = cursor.line.indexOf("'", start + 1);
  if (end === -1) throw new ShellWordsError('Unterminated single quote', start);
  cursor.index = end + 1;
  return cursor.line.slice(start + 1, end);
}

/** Reads a double-quoted part (cursor on the opening quote), applying its few escapes. */
function readDoubleQuoted(cursor: Cursor): string {
  const { line } = cursor;
  const start = cursor.index;
  let text = '';
  let index = start + 1;
  while (index < line.length) {
    const char = line[index] as string;
    if (char === '"') {
      cursor.index = index + 1;
      return text;
    }
    if (char === '\\' && index + 1 < line.length) {
      const next = line[index + 1] as string;
      // Backslash-newline is a line continuation: both characters vanish.
      if (next === '\n') {
        index += 2;
        continue;
      }
      if (DOUBLE_QUOTE_ESCAPABLE.has(next)) {
        text += next;
        index += 2;
        continue;
      }
    }
    text += char;
    index += 1;
  }
  throw new ShellWordsError('Unterminated double quote', start);
}

/** Reads an unquoted backslash escape (cursor on the backslash). */
function readEscaped(cursor: Cursor): string {
  const start = cursor.index;
  if (start + 1 >= cursor.line.length) throw new ShellWordsError('Trailing backslash', start);
  const next = cursor.line[start + 1] as string;
  cursor.index = start + 2;
  // Backslash-newline is a line continuation, not an escaped newline.
  return next === '\n' ? '' : next;
}

/**
 * Splits `line` into words: blanks separate words, single quotes are literal, double
 * quotes allow `\\ \" \$ \`` and backslash-newline, a backslash outside quotes escapes the
 * next character, and adjacent quoted/unquoted parts join into one word (`''` is an
 * empty word). Throws ShellWordsError for an unterminated quote or a trailing backslash.
 */
export function splitShellWords(line: string): string[] {
  const words: string[] = [];
  const cursor: Cursor = { line, index: 0 };
  let word = '';
  // A word exists once any part of it is read, even if that part is empty (`''`).
  let inWord = false;

  while (cursor.index < line.length) {
    const char = line[cursor.index] as string;
    if (isBlank(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      cursor.index += 1;
      continue;
    }
    if (char === "'") {
      word += readSingleQuoted(cursor);
    } else if (char === '"') {
      word += readDoubleQuoted(cursor);
    } else if (char === '\\') {
      const escaped = readEscaped(cursor);
      // A line continuation between words must not start an empty word.
      if (escaped === '' && !inWord) continue;
      word += escaped;
    } else {
      word += char;
      cursor.index += 1;
    }
    inWord = true;
  }
  if (inWord) words.push(word);
  return words;
}
