// `${…}` in a flow's strings: a field of an earlier step's answer (`${purchase.offer.cashback}`), or a
// builtin — `${run}`, `${now}`, `${today}`, `${days(N)}`. A string that is exactly one reference takes
// the value's own type (a number stays a number); inside longer text the value is written out.
import { DAY_MS } from "../../domain/time-units.ts";

export const BUILTINS = ["run", "now", "today", "days"];

/** Whether `ref` is a builtin as written: run, now, today or days(N). */
export const isBuiltin = (ref: string) => /^(run|now|today|days\(\s*[+-]?\d+\s*\))$/.test(ref);

const REFERENCE = /\$\{([^}]+)\}/g;

export const referencesIn = (text: string): string[] => [...text.matchAll(REFERENCE)].map((m) => m[1]!.trim());

export interface Scope {
  /** The answers of the steps so far, by id. */
  answers: Map<string, unknown>;
  run: string;
  /** Service time now (the runner reads the service clock). */
  now(): Promise<Date>;
}

export class ReferenceError extends Error {}

/** The value at a dotted path (array indices as numbers), or undefined. */
export function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(".").filter(Boolean)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const dayOffset = (now: Date, days: number) => new Date(now.getTime() + days * DAY_MS).toISOString().slice(0, 10);

async function valueOf(ref: string, scope: Scope): Promise<unknown> {
  if (ref === "run") return scope.run;
  if (ref === "now") return (await scope.now()).toISOString();
  if (ref === "today") return dayOffset(await scope.now(), 0);
  const days = /^days\(\s*([+-]?\d+)\s*\)$/.exec(ref);
  if (days) return `${dayOffset(await scope.now(), Number(days[1]))}T00:00:00`;
  const [head, ...rest] = ref.split(".");
  if (!scope.answers.has(head!)) throw new ReferenceError(`\${${ref}}: step ${head} has no answer`);
  const value = at(scope.answers.get(head!), rest.join("."));
  if (value === undefined) throw new ReferenceError(`\${${ref}}: the answer of ${head} has no ${rest.join(".") || "value"}`);
  return value;
}

/** `value` with every reference in its strings resolved. */
export async function resolve(value: unknown, scope: Scope): Promise<unknown> {
  if (typeof value === "string") {
    const refs = referencesIn(value);
    if (refs.length === 0) return value;
    const whole = /^\$\{([^}]+)\}$/.exec(value);
    if (whole) return valueOf(whole[1]!.trim(), scope);
    let out = value;
    for (const ref of refs) {
      const v = await valueOf(ref, scope);
      out = out.replace(`\${${ref}}`, typeof v === "string" ? v : JSON.stringify(v));
    }
    return out;
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => resolve(v, scope)));
  if (value && typeof value === "object") {
    const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await resolve(v, scope)] as const));
    return Object.fromEntries(entries);
  }
  return value;
}
