// frozen(): plain data made read-only in place, for values that are shared once made (a
// status a consumer keeps, a cached object's parts many objects carry alike).

/** The value, and every object in it, frozen (plain data: objects, arrays, primitives). */
export function frozen<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const item of Object.values(value)) frozen(item);
  return Object.freeze(value);
}
