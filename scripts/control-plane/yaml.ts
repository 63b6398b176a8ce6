// A tiny YAML writer for the plain data we generate (kubeconfigs, KWOK stages). We write
// YAML rather than JSON so the files in a cluster's work dir stay readable when debugging;
// multi-line strings (Go templates) become literal blocks.

export type YamlValue = string | number | boolean | null | readonly YamlValue[] | { readonly [key: string]: YamlValue | undefined };

/** Serializes one document (no leading `---`). */
export function toYaml(value: YamlValue): string {
  return `${renderBlock(value, 0).join('\n')}\n`;
}

/** Serializes several documents separated by `---`. */
export function toYamlDocuments(documents: readonly YamlValue[]): string {
  return documents.map((document) => `---\n${toYaml(document)}`).join('');
}

function renderBlock(value: YamlValue, indent: number): string[] {
  if (Array.isArray(value)) return renderSequence(value, indent);
  if (isMapping(value)) return renderMapping(value, indent);
  return [`${pad(indent)}${renderScalar(value as string | number | boolean | null)}`];
}

function renderSequence(items: readonly YamlValue[], indent: number): string[] {
  if (items.length === 0) return [`${pad(indent)}[]`];
  return items.flatMap((item) => {
    const lines = isCollection(item) ? renderBlock(item, indent + 2) : [`${pad(indent + 2)}${renderInline(item, indent + 2)}`];
    // The first line of the item carries the dash in place of its indentation.
    const [first = '', ...rest] = lines;
    return [`${pad(indent)}- ${first.slice(indent + 2)}`, ...rest];
  });
}

function renderMapping(mapping: { readonly [key: string]: YamlValue | undefined }, indent: number): string[] {
  const entries = Object.entries(mapping).filter((entry): entry is [string, YamlValue] => entry[1] !== undefined);
  if (entries.length === 0) return [`${pad(indent)}{}`];
  return entries.flatMap(([key, item]) => {
    const renderedKey = `${pad(indent)}${renderKey(key)}:`;
    if (isCollection(item) && !isEmptyCollection(item)) return [renderedKey, ...renderBlock(item, indent + 2)];
    return [`${renderedKey} ${renderInline(item, indent)}`];
  });
}

/** A scalar (or empty collection) on the same line as its key or dash. */
function renderInline(value: YamlValue, indent: number): string {
  if (Array.isArray(value)) return '[]';
  if (isMapping(value)) return '{}';
  if (typeof value === 'string' && value.includes('\n')) return renderLiteralBlock(value, indent);
  return renderScalar(value as string | number | boolean | null);
}

function renderLiteralBlock(text: string, indent: number): string {
  const chomping = text.endsWith('\n') ? '' : '-';
  const body = text.replace(/\n$/, '').split('\n');
  // An explicit indentation indicator keeps leading spaces of the first line intact.
  return `|2${chomping}\n${body.map((line) => (line === '' ? '' : `${pad(indent + 2)}${line}`)).join('\n')}`;
}

function renderScalar(value: string | number | boolean | null): string {
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // JSON strings are valid YAML double-quoted scalars: always safe, never re-typed.
  return JSON.stringify(value);
}

function renderKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.\-/]*$/.test(key) ? key : JSON.stringify(key);
}

function isMapping(value: YamlValue): value is { readonly [key: string]: YamlValue | undefined } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCollection(value: YamlValue): value is readonly YamlValue[] | { readonly [key: string]: YamlValue | undefined } {
  return typeof value === 'object' && value !== null;
}

function isEmptyCollection(value: readonly YamlValue[] | { readonly [key: string]: YamlValue | undefined }): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

function pad(width: number): string {
  return ' '.repeat(width);
}
