// The one place credentials are masked, in text that leaves the process: CLI lines and
// JSON, error messages (stacks, cause chains, error fields), progress and status events,
// the live page. It is never applied to the objects the library works on: a Deployment
// named like a secret still matches its waiter.
//
// A Masker masks two things:
//   - values it was told are secrets (a kubeconfig's tokens, passwords, key data, exec env
//     values, arguments after a token-like flag; what an exec plugin minted), in the forms
//     an echo gives them: split by a line break or a space, JSON-escaped (`\/`, `\uXXXX`,
//     JSON inside JSON), percent-encoded (either case, twice), base64 and base64url at any
//     alignment, hex, and a truncated prefix;
//   - credential shapes, whoever printed them: JWTs, `Bearer` and `Basic` values,
//     `token=`/`secret=`/`password=`/`client_secret`/`clientSecret` and their JSON and
//     YAML forms, a value after a token-like flag, AWS access keys, `sha256~` and `ghp_`
//     tokens, PEM bodies, base64 key data, credentials in URLs.
// Each is replaced by `***`. A known value shorter than MIN_ANYWHERE is masked only where
// it stands alone, so a short password does not mask every word containing it.
//
// Text a third party wrote and we relay (an exec plugin's stderr, an API server's message)
// may hold a credential in no shape at all (`token VALUE`, a bare token): there, long
// high-entropy words are masked too (maskHighEntropyWords).
import { KubeProvisionerError } from './errors/base.js';

export const MASK = '***';

/** Known values this long or longer are masked wherever they appear; shorter ones only standing alone. */
const MIN_ANYWHERE = 8;
/** A known value this long or longer is masked also when only its beginning appears (a cut echo)... */
const MIN_PREFIXED = 16;
/** ...once at least this much of it is there. */
const PREFIX_LENGTH = 10;
/** Exec plugins mint a new token now and then: the masker remembers this many of the latest sets. */
const LEARNED_SETS = 4;
/** No secret form (8 characters and more) and no shape (`token=x`) fits in a shorter text. */
const SHORTEST_MATCH = 7;
/** Texts up to this long are remembered with their masked form, at most RECENT_TEXTS of them. */
const RECENT_TEXT_LENGTH = 128;
const RECENT_TEXTS = 4096;
/** Decoding passes over a text (JSON inside JSON, double percent-encoding). */
const DECODE_PASSES = 4;

/** Masks credentials in text (a Masker, a client's `scrub`, or the shapes-only default). */
export type MaskText = (text: string) => string;

interface Compiled {
  /** The first PREFIX_LENGTH characters of each form (the whole form when shorter). */
  readonly heads: RegExp | undefined;
  readonly formsByHead: ReadonlyMap<string, readonly string[]>;
  readonly compactHeads: RegExp | undefined;
  readonly compactFormsByHead: ReadonlyMap<string, readonly string[]>;
  readonly short: RegExp | undefined;
}

export class Masker {
  private readonly values = new Set<string>();
  private learned: (readonly string[])[] = [];
  private compiled: Compiled | undefined;
  /** Short texts masked lately: events repeat the same words (keys, states, names) all the time. */
  private readonly recent = new Map<string, string>();

  /** A masker for `values` (strings; anything else is ignored) and every credential shape. */
  constructor(values: Iterable<unknown> = []) {
    for (const value of values) if (typeof value === 'string' && value !== '') this.values.add(value);
  }

  /** Adds secret values for good. */
  add(...values: unknown[]): void {
    const before = this.values.size;
    for (const value of values) if (typeof value === 'string' && value !== '') this.values.add(value);
    if (this.values.size !== before) this.forget();
  }

  private forget(): void {
    this.compiled = undefined;
    this.recent.clear();
  }

  /**
   * Remembers what an authenticator just returned (an exec plugin's token and key). Only
   * the latest few sets are kept: a token replaced long ago has expired.
   */
  learn(values: readonly unknown[]): void {
    const set = values.filter((value): value is string => typeof value === 'string' && value !== '');
    if (set.length === 0 || this.learned.some((known) => sameList(known, set))) return;
    this.learned = [...this.learned, set].slice(-LEARNED_SETS);
    this.forget();
  }

  /** How many distinct secret values it knows (not counting their derived forms). */
  get size(): number {
    return new Set([...this.values, ...this.learned.flat()]).size;
  }

  /** `text` with every known value (in any of its forms) and every credential shape replaced by `***`. */
  mask(text: string): string {
    if (typeof text !== 'string' || text === '') return text;
    const compiled = (this.compiled ??= compile([...this.values, ...this.learned.flat()]));
    // Most of what leaves is short words and names: nothing a secret or a shape fits in.
    if (text.length < SHORTEST_MATCH && !compiled.short) return text;
    if (text.length > RECENT_TEXT_LENGTH) return this.maskText(text, compiled);
    const known = this.recent.get(text);
    if (known !== undefined) return known;
    const masked = this.maskText(text, compiled);
    if (this.recent.size >= RECENT_TEXTS) this.recent.clear();
    this.recent.set(text, masked);
    return masked;
  }

  private maskText(text: string, compiled: Compiled): string {
    const ranges: number[] = [];
    const raw = new View(text);
    const views = [raw];
    const decoded = decode(raw);
    if (decoded !== raw) views.push(decoded);
    for (const view of views) {
      findKnown(view, compiled.heads, compiled.formsByHead, ranges);
      findShort(view, compiled.short, ranges);
      findShapes(view, ranges);
      if (compiled.compactHeads) {
        const compact = compactOf(view);
        if (compact !== view) findKnown(compact, compiled.compactHeads, compiled.compactFormsByHead, ranges);
      }
    }
    return ranges.length === 0 ? text : replaceRanges(text, ranges);
  }

  /** A plain value (an event, a record) with every string, keys included, masked (see maskValueWith). */
  maskValue<T>(value: T): T {
    return maskValueWith(value, (text) => this.mask(text));
  }

  /** The error with its message, stack, name and fields masked, and its cause chain (see maskErrorWith). */
  maskError<E>(error: E): E {
    return maskErrorWith(error, (text) => this.mask(text));
  }
}

const SHAPES_ONLY = new Masker();

// ---- high-entropy words, in relayed text -----------------------------------------------

/** A word: a run of the characters tokens are made of; `.`, `/`, `:` and `@` split it, so a path, host or image reference is judged by its parts. */
const WORD = /[A-Za-z0-9_+=~-]+/g;
/** A word with upper and lower case letters and digits is judged from this length... */
const MIN_MIXED_CASE = 20;
/** ...and one of lowercase letters and digits only (it may be a name: names have dashes) from this length. */
const MIN_ONE_CASE = 32;
/** Shannon entropy per character, in bits, from which such a word is taken for random. */
const MIN_MIXED_CASE_ENTROPY = 3.5;
const MIN_ONE_CASE_ENTROPY = 3.8;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `word` looks like a random secret rather than something a user reads: long,
 * letters and digits mixed, high entropy. Kept whatever their length: UIDs, and hex (a
 * digest, a commit, a container ID), which users need to find what a message is about and
 * a token is rarely printed as; Kubernetes names (lowercase with dashes, shorter than
 * MIN_ONE_CASE in their random parts); words without digits.
 */
export function isHighEntropyWord(word: string): boolean {
  if (word.length < MIN_MIXED_CASE || UUID.test(word) || /^[0-9a-f]+$/i.test(word)) return false;
  if (!/[0-9]/.test(word) || !/[A-Za-z]/.test(word)) return false;
  const mixedCase = /[a-z]/.test(word) && /[A-Z]/.test(word);
  if (mixedCase) return entropyOf(word) >= MIN_MIXED_CASE_ENTROPY;
  return word.length >= MIN_ONE_CASE && /^[a-z0-9]+$/i.test(word) && entropyOf(word) >= MIN_ONE_CASE_ENTROPY;
}

function entropyOf(word: string): number {
  const counts = new Map<string, number>();
  for (const char of word) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const share = count / word.length;
    bits -= share * Math.log2(share);
  }
  return bits;
}

/**
 * Relayed text with its long high-entropy words replaced by `***` (see isHighEntropyWord).
 * Only for text a third party wrote: applied to our own, it would hide what users need.
 */
export function maskHighEntropyWords(text: string): string {
  if (text.length < MIN_MIXED_CASE) return text;
  return text.replace(WORD, (word) => (isHighEntropyWord(word) ? MASK : word));
}

/**
 * `text` with every credential shape masked (no known values: for text no client relayed);
 * given a plain value (an event), the value with every string masked (see maskValueWith).
 */
export function maskCredentials(text: string): string;
export function maskCredentials<T>(value: T): T;
export function maskCredentials(value: unknown): unknown {
  return typeof value === 'string' ? SHAPES_ONLY.mask(value) : maskValueWith(value, (text) => SHAPES_ONLY.mask(text));
}

/** The masking of a client that has one (its `scrub`), else the shapes alone. */
export function maskOf(source: { readonly scrub?: MaskText } | undefined): MaskText {
  const scrub = source?.scrub;
  return typeof scrub === 'function' ? (text) => scrub.call(source, text) : maskCredentials;
}

/**
 * A plain value with every string masked; errors inside go through maskErrorWith. What
 * changes is copied, never written to; a part with nothing to mask is the value's own.
 */
export function maskValueWith<T>(value: T, mask: MaskText): T {
  return maskDeep(value, mask, 0) as T;
}

export interface MaskErrorOptions {
  /**
   * What to do with an error that is not the project's: `copy` (default) replaces it by a
   * masked plain copy; `keep` leaves it as it is (an operation's output, whose foreign
   * errors are the caller's own, such as an abort reason, or were masked by the client).
   */
  readonly foreign?: 'copy' | 'keep';
}

/**
 * The error with every credential masked. The project's own errors are masked in place:
 * message, stack and every field (a relayed detail, a last status, an error they hold).
 * Any other error (a client or system error, whose extra fields may hold a request's
 * headers or a spawn's arguments) is replaced by a plain copy keeping only its name, code
 * and message, masked, and its cause.
 */
export function maskErrorWith<E>(error: E, mask: MaskText, options: MaskErrorOptions = {}): E {
  return maskErrorDeep(error, mask, 0, options.foreign === 'keep') as E;
}

function maskErrorDeep(error: unknown, mask: MaskText, depth: number, keepForeign = false): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' && !keepForeign ? mask(error) : error;
  if (keepForeign && !(error instanceof KubeProvisionerError)) return error;
  if (depth > 8) return new Error('(cause chain cut)');
  const cause = 'cause' in error ? maskErrorDeep(error.cause, mask, depth + 1, keepForeign) : undefined;
  if (error instanceof KubeProvisionerError) {
    error.message = mask(error.message);
    if (error.stack) error.stack = mask(error.stack);
    if ('cause' in error) redefine(error, 'cause', cause);
    for (const key of Object.keys(error)) {
      const field = (error as unknown as Record<string, unknown>)[key];
      if (key !== 'cause' && field !== undefined && field !== null) redefine(error, key, maskDeep(field, mask, depth + 1, keepForeign));
    }
    return error;
  }
  const name = mask(typeof error.name === 'string' ? error.name : 'Error');
  const copy = new Error(mask(String(error.message)), 'cause' in error ? { cause } : undefined);
  redefine(copy, 'name', name);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code: typeof code === 'string' ? mask(code) : code });
  copy.stack = `${name}: ${copy.message}`;
  return copy;
}

function maskDeep(value: unknown, mask: MaskText, depth: number, keepForeign = false): unknown {
  if (typeof value === 'string') return mask(value);
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (value instanceof Error) return maskErrorDeep(value, mask, depth, keepForeign);
  if (Array.isArray(value)) {
    const items = value.map((item) => maskDeep(item, mask, depth + 1, keepForeign));
    return isPlain(value) && items.every((item, index) => item === value[index]) ? value : items;
  }
  const copy: Record<string, unknown> = {};
  // Copy-on-write for plain data: a value with nothing to mask is handed on as it is, so a
  // consumer keeping it shares it with its source (a status board's last status) instead
  // of holding a second copy.
  let changed = !isPlain(value);
  for (const key of Object.keys(value)) {
    const original = (value as Record<string, unknown>)[key];
    const item = maskDeep(original, mask, depth + 1, keepForeign);
    const masked = mask(key);
    if (item !== original || masked !== key) changed = true;
    if (masked === '__proto__') redefine(copy, masked, item);
    else copy[masked] = item;
  }
  return changed ? copy : value;
}

function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === Array.prototype || prototype === null;
}

/** Defines (never assigns) a property, so a key like `__proto__` stays a key. */
function redefine(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

// ---- views: the text, and the text as a server or plugin may have encoded it ------------

/**
 * A text searched for secrets, and where each of its characters came from in the original
 * text (a decoded `\u002f` is one character that stands for six).
 */
class View {
  constructor(
    readonly text: string,
    private readonly starts?: Int32Array,
    private readonly ends?: Int32Array,
  ) {}

  start(index: number): number {
    return this.starts ? this.starts[index]! : index;
  }

  end(index: number): number {
    return this.ends ? this.ends[index]! : index + 1;
  }

  /** Adds the original range of characters [from, to) of this view. */
  addRange(ranges: number[], from: number, to: number): void {
    if (to > from) ranges.push(this.start(from), this.end(to - 1));
  }
}

const JSON_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** JSON escapes and ASCII percent-encodings decoded, repeatedly (JSON in JSON, double encoding). */
function decode(view: View): View {
  let current = view;
  for (let pass = 0; pass < DECODE_PASSES; pass += 1) {
    const next = decodeOnce(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

function decodeOnce(view: View): View {
  const text = view.text;
  if (!text.includes('\\') && !text.includes('%')) return view;
  let out = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let changed = false;
  const push = (char: string, from: number, to: number): void => {
    out += char;
    starts.push(view.start(from));
    ends.push(view.end(to - 1));
  };
  for (let index = 0; index < text.length;) {
    const char = text[index]!;
    if (char === '\\' && index + 1 < text.length) {
      const next = text[index + 1]!;
      const simple = JSON_ESCAPES[next];
      if (simple !== undefined) {
        push(simple, index, index + 2);
        index += 2;
        changed = true;
        continue;
      }
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) {
        push(String.fromCharCode(parseInt(text.slice(index + 2, index + 6), 16)), index, index + 6);
        index += 6;
        changed = true;
        continue;
      }
    }
    if (char === '%' && /^[0-7][0-9a-fA-F]$/.test(text.slice(index + 1, index + 3))) {
      push(String.fromCharCode(parseInt(text.slice(index + 1, index + 3), 16)), index, index + 3);
      index += 3;
      changed = true;
      continue;
    }
    push(char, index, index + 1);
    index += 1;
  }
  return changed ? new View(out, Int32Array.from(starts), Int32Array.from(ends)) : view;
}

/** The view without its blanks and line breaks: a token split by a newline or a space is whole again. */
function compactOf(view: View): View {
  const text = view.text;
  if (!/\s/.test(text)) return view;
  const pieces = text.split(/\s+/);
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  let length = 0;
  let at = 0;
  for (const piece of pieces) {
    at = text.indexOf(piece, at);
    for (let index = 0; index < piece.length; index += 1) {
      starts[length] = view.start(at + index);
      ends[length] = view.end(at + index);
      length += 1;
    }
    at += piece.length;
  }
  return new View(pieces.join(''), starts.subarray(0, length), ends.subarray(0, length));
}

// ---- known values ------------------------------------------------------------------------

function compile(values: readonly string[]): Compiled {
  const long = new Set<string>();
  const compact = new Set<string>();
  const short = new Set<string>();
  for (const value of new Set(values)) {
    if (value.length < MIN_ANYWHERE) {
      if (value.trim() !== '') short.add(value);
      continue;
    }
    for (const form of derivedForms(value)) {
      if (form.length < MIN_ANYWHERE) continue;
      long.add(form);
      const squeezed = form.replace(/\s+/g, '');
      if (squeezed.length >= MIN_ANYWHERE) compact.add(squeezed);
    }
  }
  const [heads, formsByHead] = headsOf(long);
  const [compactHeads, compactFormsByHead] = headsOf(compact);
  const shortPattern = short.size
    ? new RegExp(
        `(?<![A-Za-z0-9_.~+/-])(?:${[...short]
          .sort((a, b) => b.length - a.length)
          .map(escapeRegExp)
          .join('|')})(?![A-Za-z0-9_.~+/-])`,
        'g',
      )
    : undefined;
  return { heads, formsByHead, compactHeads, compactFormsByHead, short: shortPattern };
}

function headsOf(forms: ReadonlySet<string>): [RegExp | undefined, Map<string, string[]>] {
  const byHead = new Map<string, string[]>();
  for (const form of forms) {
    const head = form.length >= MIN_PREFIXED ? form.slice(0, PREFIX_LENGTH) : form;
    const list = byHead.get(head);
    if (list) list.push(form);
    else byHead.set(head, [form]);
  }
  if (byHead.size === 0) return [undefined, byHead];
  const alternatives = [...byHead.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return [new RegExp(alternatives.join('|'), 'g'), byHead];
}

/**
 * The forms a secret takes in an echo: as it is, JSON-escaped (once and twice),
 * percent-encoded (upper and lower case, and twice), hex, and base64 and base64url at each
 * of the three alignments a value can have inside a longer base64 text.
 */
function derivedForms(value: string): string[] {
  const forms = new Set<string>([value]);
  const json = JSON.stringify(value).slice(1, -1);
  forms.add(json);
  forms.add(JSON.stringify(json).slice(1, -1));
  try {
    const uri = encodeURIComponent(value);
    forms.add(uri);
    forms.add(uri.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
    forms.add(encodeURIComponent(uri));
  } catch {
    // A lone surrogate cannot be percent-encoded; the other forms are still masked.
  }
  const bytes = Buffer.from(value, 'utf8');
  forms.add(bytes.toString('hex'));
  forms.add(bytes.toString('hex').toUpperCase());
  forms.add(bytes.toString('base64'));
  forms.add(bytes.toString('base64url'));
  for (let offset = 0; offset < 3; offset += 1) {
    const part = bytes.subarray(offset);
    const whole = part.subarray(0, part.length - (part.length % 3));
    if (whole.length >= 6) {
      forms.add(whole.toString('base64'));
      forms.add(whole.toString('base64url'));
    }
  }
  return [...forms];
}

function findKnown(view: View, heads: RegExp | undefined, formsByHead: ReadonlyMap<string, readonly string[]>, ranges: number[]): void {
  if (!heads) return;
  const text = view.text;
  heads.lastIndex = 0;
  for (let match = heads.exec(text); match; match = heads.exec(text)) {
    const at = match.index;
    let longest = 0;
    for (const form of formsByHead.get(match[0]) ?? []) {
      const shared = sharedPrefix(text, at, form);
      // A long form counts from its first PREFIX_LENGTH characters (an echo cut short); a short one only whole.
      if (shared === form.length || (form.length >= MIN_PREFIXED && shared >= PREFIX_LENGTH)) longest = Math.max(longest, shared);
    }
    if (longest > 0) {
      view.addRange(ranges, at, at + longest);
      heads.lastIndex = at + longest;
    } else {
      heads.lastIndex = at + 1;
    }
  }
}

function findShort(view: View, pattern: RegExp | undefined, ranges: number[]): void {
  if (!pattern) return;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(view.text); match; match = pattern.exec(view.text)) {
    view.addRange(ranges, match.index, match.index + match[0].length);
  }
}

function sharedPrefix(text: string, at: number, form: string): number {
  let length = 0;
  while (length < form.length && text.charCodeAt(at + length) === form.charCodeAt(length)) length += 1;
  return length;
}

// ---- credential shapes ---------------------------------------------------------------------

/** Words that make a key, a flag or a variable name hold a credential. */
const KEY =
  '(?:access[_-]?token|refresh[_-]?token|id[_-]?token|token|secret|passw(?:or)?d|passphrase|api[_-]?key|private[_-]?key|key[_-]?data|credentials?|authori[sz]ation)';

const CREDENTIAL_NAME = new RegExp(KEY, 'i');

/** Whether a key, flag or variable name says its value is a credential (`--token`, `client-secret`, `AWS_SECRET_ACCESS_KEY`). */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

interface Shape {
  readonly pattern: RegExp;
  /** The capture groups that hold the secret (the first that matched is masked); none: the whole match. */
  readonly groups?: readonly number[];
  /** Whether the captured text really is a credential. */
  readonly accept?: (secret: string) => boolean;
}

/** At least 8 characters and not a plain word ("authentication", "Token", "MISSING"). */
function looksLikeCredential(text: string): boolean {
  return text.length >= 8 && !/^[A-Z]?[a-z]+$/.test(text) && !/^[A-Z]+$/.test(text);
}

function isBasicPair(text: string): boolean {
  return Buffer.from(text, 'base64').toString('latin1').includes(':');
}

function mixedBase64(text: string): boolean {
  return /[A-Z]/.test(text) && /[a-z]/.test(text) && /[0-9]/.test(text) && !text.startsWith('/');
}

const SHAPES: readonly Shape[] = [
  // token=..., client_secret=..., AWS_SECRET_ACCESS_KEY=..., --token=..., password="..."
  {
    pattern: new RegExp(
      `${KEY}[\\w.-]{0,40}?["']?[ \\t]{0,3}=[ \\t]{0,3}(?:"([^"\\n]{1,512})"|'([^'\\n]{1,512})'|([^\\s"'&,;)}\\]]{1,512}))`,
      'gid',
    ),
    groups: [1, 2, 3],
  },
  // "clientSecret": "...", "password":"..." (JSON)
  { pattern: new RegExp(`"[\\w.-]{0,40}?${KEY}[\\w.-]{0,40}"\\s{0,3}:\\s{0,3}"((?:[^"\\\\\\n]|\\\\.){1,4096})"`, 'gid'), groups: [1] },
  // password: ..., client-secret: ... (YAML, logs), when what follows looks like a credential
  {
    pattern: new RegExp(`${KEY}[\\w.-]{0,40}?["']?[ \\t]{0,3}:[ \\t]{0,3}([^\\s"',;]{8,512})`, 'gid'),
    groups: [1],
    accept: looksLikeCredential,
  },
  // --token VALUE, -client-secret VALUE: a value after a token-like flag
  {
    pattern: new RegExp(`(?<![\\w-])--?[\\w-]{0,40}?${KEY}[\\w-]{0,40}[ \\t]{1,3}([^\\s"'-][^\\s"']{5,511})`, 'gid'),
    groups: [1],
    accept: looksLikeCredential,
  },
  { pattern: /\bBearer\s{1,3}([A-Za-z0-9._~+/=-]{8,8192})/dgi, groups: [1], accept: looksLikeCredential },
  { pattern: /\bBasic\s{1,3}([A-Za-z0-9+/]{4,4096}={0,2})/dg, groups: [1], accept: isBasicPair },
  // JWTs (and a JWT cut short): base64url JSON starting with {"
  { pattern: /eyJ[A-Za-z0-9_-]{8,8192}(?:\.[A-Za-z0-9_-]{1,8192}){0,4}/dg },
  // AWS access key IDs
  { pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}\b/dg },
  // OpenShift, GitHub, GitLab and Slack tokens
  { pattern: /sha256~[A-Za-z0-9_-]{20,4096}/dg },
  {
    pattern:
      /\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255}|glpat-[A-Za-z0-9_-]{20,255}|xox[abposr]-[A-Za-z0-9-]{10,255})/dg,
  },
  // PEM bodies (to the END line, or to the end of a text cut short)
  { pattern: /-----BEGIN ([A-Z0-9 ]{1,64})-----([\s\S]*?)(?:-----END \1-----|$)/dg, groups: [2] },
  // base64 of a PEM ("-----BEGIN" in base64), and long base64 runs such as key data and PEM lines
  { pattern: /LS0tLS1CRUdJTi[A-Za-z0-9+/=_-]*/dg },
  { pattern: /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40,65536}={0,2}/dg, accept: mixedBase64 },
  // user:password@ (or a token as the user) in a URL
  { pattern: /\b[A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/([^\s/@:]{1,256}(?::[^\s/@]{0,256})?)@/dg, groups: [1] },
];

/** Text without any of these holds no shape (one pass instead of one per shape). */
const SHAPE_HINT =
  /token|secret|passw|passphrase|api[_-]?key|apikey|private[_-]?key|key[_-]?data|credential|authori[sz]ation|bearer|basic|eyJ|\b(?:A[A-Z]{2}A)[A-Z0-9]{16}\b|sha256~|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|-----BEGIN|LS0tLS1CRUdJTi|:\/\/|[A-Za-z0-9+/]{40}/i;

function findShapes(view: View, ranges: number[]): void {
  const text = view.text;
  SHAPE_HINT.lastIndex = 0;
  if (!SHAPE_HINT.test(text)) return;
  for (const shape of SHAPES) {
    shape.pattern.lastIndex = 0;
    for (let match = shape.pattern.exec(text); match; match = shape.pattern.exec(text)) {
      if (match[0].length === 0) {
        shape.pattern.lastIndex += 1;
        continue;
      }
      const indices = match.indices!;
      const group = shape.groups ? shape.groups.find((index) => indices[index] !== undefined) : 0;
      if (group === undefined) continue;
      const [from, to] = indices[group]!;
      if (shape.accept && !shape.accept(text.slice(from, to))) {
        // Not a credential after all: look again just past the start (a later key may be).
        shape.pattern.lastIndex = match.index + 1;
        continue;
      }
      view.addRange(ranges, from, to);
    }
  }
}

// ---- replacing ---------------------------------------------------------------------------

function replaceRanges(text: string, flat: readonly number[]): string {
  const pairs: [number, number][] = [];
  for (let index = 0; index < flat.length; index += 2) pairs.push([flat[index]!, flat[index + 1]!]);
  pairs.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let position = 0;
  let open: [number, number] | undefined;
  for (const [from, to] of pairs) {
    if (open && from <= open[1]) {
      open[1] = Math.max(open[1], to);
      continue;
    }
    if (open) {
      out += MASK;
      position = open[1];
    }
    out += text.slice(position, from);
    open = [from, to];
  }
  if (open) {
    out += MASK;
    position = open[1];
  }
  return out + text.slice(position);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
