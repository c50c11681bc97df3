// Turns a submitted HTML form into the API's JSON body. Only encoding happens here: an empty field is
// left out (so the API's default applies), a number field becomes a number when it reads as one and is
// passed on as typed otherwise, so the API's validation names it. No business rule lives here.
import type { DashContext } from "./context.ts";

export type FormValues = Record<string, string | string[]>;

export async function readForm(c: DashContext): Promise<FormValues> {
  const body = await c.req.parseBody({ all: true });
  const out: FormValues = {};
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === "string");
    else if (typeof v === "string") out[k] = v;
  }
  return out;
}

export function text(f: FormValues, name: string): string | undefined {
  const v = f[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === "" ? undefined : s.trim();
}

export function num(f: FormValues, name: string): number | string | undefined {
  const s = text(f, name);
  if (s === undefined) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : s;
}

export const checked = (f: FormValues, name: string): boolean => text(f, name) !== undefined;

export function all(f: FormValues, name: string): string[] {
  const v = f[name];
  return v === undefined ? [] : (Array.isArray(v) ? v : [v]).filter((s) => s.trim() !== "");
}

/** A datetime-local value (seconds are left out when zero) as the API's local `YYYY-MM-DDThh:mm:ss`. */
export function localDateTime(f: FormValues, name: string): string | undefined {
  const s = text(f, name);
  return s && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(s) ? `${s}:00` : s;
}

/** A datetime-local value read as UTC (`…Z`, seconds added when left out); other text is passed on as typed, for the API to name. */
export function utcInstant(f: FormValues, name: string): string | undefined {
  const s = text(f, name);
  if (s && /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(s)) return `${s}:00Z`;
  return s && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(s) ? `${s}Z` : s;
}

/** A JSON field: the parsed value when it parses, the text as typed otherwise (the API names the field). */
export function json(f: FormValues, name: string): unknown {
  const s = text(f, name);
  if (s === undefined) return undefined;
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return s;
  }
}

/** Drops undefined members, and objects left empty, so the API sees only what the form gave. */
export function compact<T extends Record<string, unknown>>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const inner = compact(v as Record<string, unknown>);
      if (Object.keys(inner).length) out[k] = inner;
    } else out[k] = v;
  }
  return out as Partial<T>;
}
