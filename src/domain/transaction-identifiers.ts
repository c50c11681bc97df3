// A purchase's identifiers come in stages: the authorization brings some (auth codes), the clearing
// others (Mastercard's transaction sequence number). The record keeps what every stage brought.

/**
 * The identifiers of a record after another stage: each identifier the record has stays; one it lacks
 * is taken from the stage. Pure: returns a new object.
 */
export function mergeIdentifiers<T extends { [K in keyof T]: string | null }>(record: T, stage: T): T {
  const merged = { ...record };
  for (const key of Object.keys(stage) as (keyof T)[]) {
    if (merged[key] === null || merged[key] === undefined) merged[key] = stage[key];
  }
  return merged;
}
