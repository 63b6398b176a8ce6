import { describe, expect, it } from 'vitest';
import { ShellWordsError } from '../../../src/errors/input.js';
import { splitShellWords } from '../../../src/input/shell-words.js';

describe('splitShellWords', () => {
  it('splits plain words on single spaces', () => {
    expect(splitShellWords('nginx -g daemon')).toEqual(['nginx', '-g', 'daemon']);
  });

  it('treats runs of spaces, tabs and newlines as one separator and ignores leading/trailing blanks', () => {
    expect(splitShellWords('  a \t\tb\n c  ')).toEqual(['a', 'b', 'c']);
  });

  it('returns no words for an empty or blank line', () => {
    expect(splitShellWords('')).toEqual([]);
    expect(splitShellWords(' \t ')).toEqual([]);
  });

  it('keeps single-quoted text literal, including backslashes, $ and double quotes', () => {
    expect(splitShellWords(`sh -c 'echo "$HOME" \\n done'`)).toEqual(['sh', '-c', 'echo "$HOME" \\n done']);
  });

  it('applies only the double-quote escapes \\\\ \\" \\$ \\` and keeps other backslashes', () => {
    expect(splitShellWords('"a\\"b" "c\\\\d" "\\$X" "\\`y\\`" "\\n\\t"')).toEqual(['a"b', 'c\\d', '$X', '`y`', '\\n\\t']);
  });

  it('does not expand variables, globs, tildes or operators', () => {
    expect(splitShellWords('echo $HOME ~ *.txt a;b # c')).toEqual(['echo', '$HOME', '~', '*.txt', 'a;b', '#', 'c']);
  });

  it('yields an empty word for \'\' and ""', () => {
    expect(splitShellWords('cmd \'\' "" x')).toEqual(['cmd', '', '', 'x']);
  });

  it('joins adjacent quoted and unquoted parts into one word', () => {
    expect(splitShellWords(`--name='my app'"'s"_v2 next`)).toEqual(["--name=my app's_v2", 'next']);
  });

  it('escapes the next character with a backslash outside quotes (backslash-space keeps one word)', () => {
    expect(splitShellWords('my\\ file \\"q\\" \\\\')).toEqual(['my file', '"q"', '\\']);
  });

  it('treats backslash-newline as a line continuation', () => {
    expect(splitShellWords('run \\\n--flag a\\\nb "c\\\nd"')).toEqual(['run', '--flag', 'ab', 'cd']);
  });

  it('throws ShellWordsError for an unterminated single quote, naming where it started', () => {
    const error = captureError(() => splitShellWords("echo 'oops"));
    expect(error).toBeInstanceOf(ShellWordsError);
    expect(error).toMatchObject({ name: 'ShellWordsError', position: 5 });
    expect((error as Error).message).toBe('Unterminated single quote at character 6');
  });

  it('throws ShellWordsError for an unterminated double quote, even one ending in an escaped quote', () => {
    expect(() => splitShellWords('say "hi')).toThrow(/Unterminated double quote at character 5/);
    expect(() => splitShellWords('say "hi\\"')).toThrow(ShellWordsError);
  });

  it('throws ShellWordsError for a trailing backslash', () => {
    expect(() => splitShellWords('run \\')).toThrow(/Trailing backslash at character 5/);
  });

  it('splits a Manager-style "Entrypoint Cmd" line', () => {
    expect(splitShellWords('docker-entrypoint.sh postgres')).toEqual(['docker-entrypoint.sh', 'postgres']);
  });
});

function captureError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}
