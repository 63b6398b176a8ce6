// Plain data made read-only in place, for values that are shared once made: a status a
// consumer keeps, and the parts many cached objects and statuses carry alike.

/** The value, and every object in it, frozen (plain data: objects, arrays, primitives). */
export function frozen<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const item of Object.values(value)) frozen(item);
  return Object.freeze(value);
}

/**
 * Parts many cached objects and statuses carry alike (a Pod's Ready condition, a running
 * container's state, a Service's ports, a container's resources, replica counts): one frozen
 * copy of each, found by its kind and its JSON (every field is present, so the JSON says all
 * of it), from a table that is bounded (and starts afresh when full). Not for parts that
 * often belong to one object alone (a message that names it, a load balancer's address): the
 * table's key for such a part would cost more than the copy it saves.
 */
const SHARED_VALUES = new Map<string, object>();
const MAX_SHARED_VALUES = 4096;

/** `value`, or the frozen copy of an equal one of the same kind made before; `value` is then frozen. */
export function sharedValue<T extends object | undefined>(kind: string, value: T): T {
  if (value === undefined) return value;
  const key = `${kind}:${JSON.stringify(value)}`;
  const known = SHARED_VALUES.get(key);
  if (known !== undefined) return known as T;
  if (SHARED_VALUES.size >= MAX_SHARED_VALUES) SHARED_VALUES.clear();
  SHARED_VALUES.set(key, frozen(value));
  return value;
}
