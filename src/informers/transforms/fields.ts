// What every informer transform shares (client-go's SetTransform, one per kind, in this
// folder): a reader of typed fields that names the field at fault, the identity every
// cached object keeps, the labels and conditions read, and one shared copy of strings many
// objects repeat. The projections keep only the fields something reads, and every field is
// always present (undefined when absent), so all cached objects of a kind are built alike
// and every reader meets the same object whatever the watch sent. They are pure, and they
// are also the check that an object fits the fields read: a field of the wrong type throws
// MalformedObjectError, and the informer skips the object instead of letting a reader
// throw on it. A JSON null counts as absent. Parts many objects carry alike are one frozen
// copy shared by all (src/interning.ts): a cached object is never modified. Each
// kind's metadata is one object literal of its own, identity fields written out: a
// literal that spreads a shared part keeps the spread fields out of the object, in a
// second allocation per cached object.
import type { V1DeploymentCondition, V1OwnerReference, V1PodCondition } from '../../kube/objects.js';
import { POD_TEMPLATE_HASH_LABEL, SERVICE_NAME_LABEL } from '../../kube/objects.js';
import { MalformedObjectError } from '../../errors/api.js';
import { CONTAINER_ID_LABEL, INSTANCE_LABEL, MANAGED_LABEL, NODE_ID_LABEL } from '../../input/labels.js';
import { sharedValue } from '../../interning.js';

export type Json = Record<string, unknown>;

/**
 * JSON.parse shares one copy of a very short string only (how short differs between V8
 * versions), so each cached object kept its own copy of the namespace, of a condition's
 * reason and message, of an image, of a node name, of an owner's kind. Those fields take one
 * shared copy from this table instead; it is bounded (and starts afresh when full), so
 * strings that do not repeat cost nothing lasting.
 */
const SHARED_STRINGS = new Map<string, string>();
const MAX_SHARED_STRINGS = 4096;
/** The shortest string that JSON.parse copies on some Node line we run on (Node 24's). */
const SHORTEST_COPIED = 10;

function sharedString(text: string): string {
  if (text.length < SHORTEST_COPIED) return text;
  const known = SHARED_STRINGS.get(text);
  if (known !== undefined) return known;
  if (SHARED_STRINGS.size >= MAX_SHARED_STRINGS) SHARED_STRINGS.clear();
  SHARED_STRINGS.set(text, text);
  return text;
}

/** Reads typed fields of one object, naming the field at fault when a type is wrong. */
export class Fields {
  constructor(
    private readonly kind: string,
    private readonly subject: unknown,
  ) {}

  fail(field: string, problem: string): never {
    const metadata = isJson(this.subject) && isJson(this.subject.metadata) ? this.subject.metadata : undefined;
    const name = typeof metadata?.name === 'string' ? metadata.name : undefined;
    throw new MalformedObjectError(this.kind, name, field, problem);
  }

  /** The object itself, which must be one. */
  root(value: unknown): Json {
    return this.object(value, '(object)') ?? this.fail('(object)', 'must be an object');
  }

  object(value: unknown, field: string): Json | undefined {
    if (value == null) return undefined;
    return isJson(value) ? value : this.fail(field, `must be an object (got ${typeName(value)})`);
  }

  list(value: unknown, field: string): unknown[] | undefined {
    if (value == null) return undefined;
    return Array.isArray(value) ? (value as unknown[]) : this.fail(field, `must be a list (got ${typeName(value)})`);
  }

  string(value: unknown, field: string): string | undefined {
    if (value == null) return undefined;
    return typeof value === 'string' ? value : this.fail(field, `must be a string (got ${typeName(value)})`);
  }

  /** string(), for values many objects carry alike: one shared copy (see sharedString). */
  common(value: unknown, field: string): string | undefined {
    const text = this.string(value, field);
    return text === undefined ? undefined : sharedString(text);
  }

  number(value: unknown, field: string): number | undefined {
    if (value == null) return undefined;
    return typeof value === 'number' && Number.isFinite(value) ? value : this.fail(field, `must be a number (got ${typeName(value)})`);
  }

  /** A time as the API gives it (a string), or as a client decoded it (a Date). */
  time(value: unknown, field: string): string | Date | undefined {
    if (value == null) return undefined;
    return typeof value === 'string' || value instanceof Date ? value : this.fail(field, `must be a time (got ${typeName(value)})`);
  }

  boolean(value: unknown, field: string): boolean | undefined {
    if (value == null) return undefined;
    return typeof value === 'boolean' ? value : this.fail(field, `must be true or false (got ${typeName(value)})`);
  }

  /** A map of strings (labels). */
  strings(value: unknown, field: string): Record<string, string> | undefined {
    const map = this.object(value, field);
    if (map)
      for (const [key, item] of Object.entries(map))
        if (typeof item !== 'string') this.fail(`${field}.${key}`, `must be a string (got ${typeName(item)})`);
    return map as Record<string, string> | undefined;
  }

  /**
   * Each item of a list, checked by `read`. Field paths name the list as `field[]` and are
   * built once per call site, not per object: a projection runs on every watch event.
   */
  each<T>(value: unknown, field: string, read: (item: Json) => T): T[] | undefined {
    // map, not push: a list built by push keeps room for more items, and these are cached.
    return this.list(value, field)?.map((item) =>
      read(this.object(item, `${field}[]`) ?? this.fail(`${field}[]`, 'must be an object (got null)')),
    );
  }
}

/** A deletion under way (the API gives a string; only its presence is read). */
export function deletionOf(metadata: Json | undefined): Date | undefined {
  return (metadata?.deletionTimestamp ?? undefined) as Date | undefined;
}

/**
 * The labels anything reads of a cached object: the ownership labels, the routing labels
 * (a Pod's template hash, an endpoint slice's Service). Every label is still checked; the
 * others (app.kubernetes.io/*, the controllers' own) are not kept.
 */
const READ_LABELS = [
  MANAGED_LABEL,
  NODE_ID_LABEL,
  CONTAINER_ID_LABEL,
  INSTANCE_LABEL,
  POD_TEMPLATE_HASH_LABEL,
  SERVICE_NAME_LABEL,
] as const;

export function readLabels(f: Fields, value: unknown): Record<string, string> | undefined {
  const labels = f.strings(value, 'metadata.labels');
  if (!labels) return undefined;
  const kept: Record<string, string> = {};
  for (const key of READ_LABELS) if (labels[key] !== undefined) kept[key] = labels[key];
  return kept;
}

/** One annotation's value, every annotation checked; undefined without it. */
export function annotationOf(f: Fields, metadata: Json | undefined, key: string): string | undefined {
  return f.string(f.strings(metadata?.annotations, 'metadata.annotations')?.[key], 'metadata.annotations');
}

/** The field paths of a list item's fields, built once. */
export function pathsOf<K extends string>(list: string, fields: readonly K[]): Readonly<Record<K, string>> {
  return Object.fromEntries(fields.map((field) => [field, `${list}[].${field}`])) as Record<K, string>;
}

const CONDITION = pathsOf('status.conditions', ['type', 'status', 'reason', 'message'] as const);
const OWNER = pathsOf('metadata.ownerReferences', ['apiVersion', 'kind', 'name', 'uid', 'controller'] as const);

/** A Deployment's, a Pod's or a claim's condition: they have the same fields. */
export function cachedCondition(f: Fields, item: Json): V1DeploymentCondition & V1PodCondition {
  const condition = {
    type: f.common(item.type, CONDITION.type) ?? f.fail(CONDITION.type, 'is missing'),
    status: f.string(item.status, CONDITION.status) ?? f.fail(CONDITION.status, 'is missing'),
    reason: f.common(item.reason, CONDITION.reason),
    message: f.common(item.message, CONDITION.message),
  };
  return condition.message === undefined ? sharedValue('condition', condition) : condition;
}

/** Every owner reference checked; of each, only the fields `read` are kept. */
export function owners(f: Fields, value: unknown, read: readonly ('kind' | 'name' | 'uid')[]): V1OwnerReference[] | undefined {
  return f.each(value, 'metadata.ownerReferences', (owner) => {
    const checked = ownerReference(f, owner);
    const kept: Partial<V1OwnerReference> = {};
    for (const field of read) kept[field] = checked[field];
    return kept as V1OwnerReference;
  });
}

function ownerReference(f: Fields, owner: Json): V1OwnerReference {
  return {
    apiVersion: f.string(owner.apiVersion, OWNER.apiVersion) as string,
    kind: f.common(owner.kind, OWNER.kind) as string,
    name: f.string(owner.name, OWNER.name) as string,
    uid: f.string(owner.uid, OWNER.uid) as string,
    controller: f.boolean(owner.controller, OWNER.controller),
  };
}

function isJson(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
