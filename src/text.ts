// Text helpers every layer may import (it imports nothing).

/** Collapses every whitespace run, newlines included, to one space: one event, one line. */
export function oneLine(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}
