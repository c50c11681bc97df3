// The rules a message's fields keep beyond the structure its Avro schema gives (digits, formats, ranges,
// real dates, known countries), layered on the schema's generated validator: each rule is a domain
// predicate with the words it is stated in, and a broken one reads "field: rule" like every other
// validation error (field-errors.ts).
import { z } from "zod";
import { countryByAlpha3 } from "./countries.ts";
import { isLocalDateTime } from "./local-dates.ts";

/** A field's rule: undefined when `value` keeps it, else the rule it breaks ("must be 6 digits"). */
export type FieldRule<V> = (value: V) => string | undefined;

/**
 * Rules for the fields of T, by name: a record's fields nest, the items of an array each take the rules
 * given for one item, and a null field is not checked (its schema says whether it may be null).
 */
export type FieldRules<T> = { readonly [K in keyof T]?: RulesOf<NonNullable<T[K]>> };
type RulesOf<V> = [V] extends [readonly (infer I)[]] ? RulesOf<NonNullable<I>> : [V] extends [object] ? FieldRules<V> : FieldRule<V>;

export const fieldRule =
  <V>(holds: (value: V) => boolean, rule: string): FieldRule<V> =>
  (value) =>
    holds(value) ? undefined : rule;

export const matches = (pattern: RegExp, rule: string): FieldRule<string> => fieldRule((s) => pattern.test(s), rule);

export const nonEmpty = fieldRule((s: string) => s.trim() !== "", "must not be empty");
export const digits = (n: number) => matches(new RegExp(`^\\d{${n}}$`), `must be ${n} digits`);
export const currencyCode = matches(/^[A-Z]{3}$/, "must be an ISO 4217 code");
export const countryCode = fieldRule((c: string) => countryByAlpha3(c) !== undefined, "must be an ISO 3166-1 alpha-3 country code");
export const localDateTime = fieldRule(isLocalDateTime, "must be YYYY-MM-DDThh:mm:ss");

// The formats zod checks the API's input with (z.uuid(), z.iso.datetime({ offset: true }), z.iso.date()), so
// a bus message and a request body agree on them.
export const uuid = matches(z.regexes.uuid(), "must be a UUID");
export const instant = matches(z.regexes.datetime({ offset: true }), "must be an ISO 8601 instant");
export const date = matches(z.regexes.date, "must be a date, YYYY-MM-DD");

export const atLeast = (min: number, rule: string) => fieldRule((n: number) => n >= min, rule);
export const between = (min: number, max: number, rule: string) => fieldRule((n: number) => n >= min && n <= max, rule);
export const positive = fieldRule((n: number) => n > 0, "must be greater than 0");

/** At most `n` decimal places, read as written (0.1 + 0.2 has one). */
export const decimalPlaces = (n: number) =>
  fieldRule((v: number) => Number.isInteger(Number((v * 10 ** n).toPrecision(12))), `must have at most ${n} decimal places`);

/**
 * What a test purchase, clearing or refund amount must be for the networks to carry it: greater than 0,
 * at most PURCHASE_AMOUNT.max, and whole cents (the simulated networks' amounts have two decimals).
 */
export const PURCHASE_AMOUNT = { max: 1_000_000, decimals: 2 } as const;
const purchaseDecimals = decimalPlaces(PURCHASE_AMOUNT.decimals);
export const purchaseAmount: FieldRule<number> = (v) =>
  positive(v) ?? (v > PURCHASE_AMOUNT.max ? `must be at most ${PURCHASE_AMOUNT.max}` : purchaseDecimals(v));

/**
 * A purchase's local date-time as the networks take it (the simulators dead-letter any other): a real
 * calendar date and time, `YYYY-MM-DDThh:mm:ss`, years 0001 to 9999 — the rule of `localDateTime`.
 */
export const purchaseDateTime: FieldRule<string> = (v) =>
  localDateTime(v) === undefined ? undefined : "must be a real local date-time YYYY-MM-DDThh:mm:ss (years 0001 to 9999), local to the location";

export interface BrokenRule {
  path: (string | number)[];
  rule: string;
}

type AnyRules = FieldRule<never> | { readonly [field: string]: AnyRules | undefined };

/** The rules `value` breaks, in the order of its fields. */
export function brokenRules<T>(value: T, rules: FieldRules<T>): BrokenRule[] {
  const broken: BrokenRule[] = [];
  const path: (string | number)[] = [];

  function check(v: unknown, r: AnyRules) {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        path.push(i);
        check(item, r);
        path.pop();
      });
    } else if (typeof r === "function") {
      // The rules were typed against the message's fields (FieldRules<T>); here they are walked as a tree.
      const rule = (r as FieldRule<unknown>)(v);
      if (rule !== undefined) broken.push({ path: [...path], rule });
    } else if (typeof v === "object") {
      const record = v as Record<string, unknown>;
      for (const field in record) {
        const nested = r[field];
        if (nested === undefined) continue;
        path.push(field);
        check(record[field], nested);
        path.pop();
      }
    }
  }

  check(value, rules);
  return broken;
}

/**
 * `schema` with `rules` layered on: once a value has the schema's structure, each rule it breaks is an
 * issue on its field (a value without that structure fails on the structure alone).
 */
export function withFieldRules<S extends z.ZodType>(schema: S, rules: FieldRules<z.output<S>>): S {
  return schema.superRefine((value, ctx) => {
    for (const { path, rule } of brokenRules(value, rules)) ctx.addIssue({ code: "custom", path, message: rule });
  });
}
