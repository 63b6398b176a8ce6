// What a viewer (a browser, a log line) may learn of an error: its name and message,
// never its stack or cause. The library's own messages never hold a credential; an error
// from elsewhere might (a URL with a password, a bearer token, a key), so those shapes
// are masked before they leave the process. One line by the one rule (src/text.ts).
import { oneLine } from '../text.js';

export interface ErrorForViewers {
  readonly name: string;
  readonly message: string;
}

const SECRET_SHAPES: readonly [RegExp, string][] = [
  [/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(-----END [A-Z0-9 ]+-----|$)/g, '[redacted key]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/(\/\/)[^/@\s:]+:[^/@\s]+@/g, '$1[redacted]@'],
  [
    /\b((?:access_?|refresh_?|id_?)?token|password|passwd|secret|api_?key|client[-_]key(?:[-_]data)?)(["']?\s*[=:]\s*["']?)[^\s"'&,;]+/gi,
    '$1$2[redacted]',
  ],
];

export function errorForViewers(error: unknown): ErrorForViewers {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return { name: oneLine(name), message: redactSecrets(oneLine(message)) };
}

export function redactSecrets(text: string): string {
  let result = text;
  for (const [shape, replacement] of SECRET_SHAPES) result = result.replace(shape, replacement);
  return result;
}
