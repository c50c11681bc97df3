// Checks of a flow's `expect` fields: each dotted path of a JSON value against a value (deep equality) or
// an operator object ($gt, $gte, $lt, $lte, $contains, $matches, $exists, $oneOf). Answers what failed.
import { isDeepStrictEqual } from "node:util";
import { at } from "./interpolate.ts";

const OPERATORS = ["$gt", "$gte", "$lt", "$lte", "$contains", "$matches", "$exists", "$oneOf"] as const;

const isOperator = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => (OPERATORS as readonly string[]).includes(k));

const show = (v: unknown) => (v === undefined ? "nothing" : JSON.stringify(v));

/** Why `actual` fails `expected`, or undefined when it holds. */
function mismatch(actual: unknown, expected: unknown): string | undefined {
  if (!isOperator(expected)) return isDeepStrictEqual(actual, expected) ? undefined : `expected ${show(expected)}, got ${show(actual)}`;
  for (const [op, want] of Object.entries(expected)) {
    const n = typeof actual === "number" ? actual : NaN;
    const ok =
      op === "$gt" ? n > Number(want)
      : op === "$gte" ? n >= Number(want)
      : op === "$lt" ? n < Number(want)
      : op === "$lte" ? n <= Number(want)
      : op === "$contains" ? (typeof actual === "string" ? actual.includes(String(want)) : Array.isArray(actual) && actual.some((x) => isDeepStrictEqual(x, want)))
      : op === "$matches" ? typeof actual === "string" && new RegExp(String(want)).test(actual)
      : op === "$exists" ? (actual !== undefined && actual !== null) === Boolean(want)
      : Array.isArray(want) && want.some((x) => isDeepStrictEqual(x, actual));
    if (!ok) return `expected ${op} ${show(want)}, got ${show(actual)}`;
  }
  return undefined;
}

/** Each failing field as `path: expected …, got …`. */
export function fieldFailures(value: unknown, fields: Record<string, unknown>): string[] {
  const failures: string[] = [];
  for (const [path, expected] of Object.entries(fields)) {
    const why = mismatch(at(value, path), expected);
    if (why) failures.push(`${path}: ${why}`);
  }
  return failures;
}
