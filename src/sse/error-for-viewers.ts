// What a viewer (a browser, a log line) may learn of an error: its name and message,
// never its stack or cause, each on one line (by the one rule, src/text.ts) and masked
// (src/mask.ts): with the credentials a client knows when the caller passes its masking,
// else with the credential shapes alone.
import { maskCredentials, type MaskText } from '../mask.js';
import { oneLine } from '../text.js';

export interface ErrorForViewers {
  readonly name: string;
  readonly message: string;
}

export function errorForViewers(error: unknown, mask: MaskText = maskCredentials): ErrorForViewers {
  const name = error instanceof Error ? String(error.name) : 'Error';
  const message = error instanceof Error ? String(error.message) : String(error);
  return { name: mask(oneLine(name)), message: mask(oneLine(message)) };
}
