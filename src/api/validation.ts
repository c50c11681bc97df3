// Turns zod failures into the one 400 body: every message names the field and the rule.
import { z, type ZodError } from "zod";
import { describeZodError } from "../domain/field-errors.ts";
import { ApiError } from "./errors.ts";

export const validationError = (error: ZodError, target?: string) =>
  new ApiError("invalid_request", describeZodError(error, target));

// A missing required field reads "required" rather than zod's type complaint about undefined.
z.config({
  customError: (issue) =>
    issue.code === "invalid_type" && issue.input === undefined ? "required" : undefined,
});

/**
 * Error options for a schema with its own rule message: an explicit message would otherwise also
 * replace "required" when the field is missing. Use as `z.uuid(rule("must be a UUID"))`.
 */
export const rule = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "required" : message),
});

/** A zod refinement by a domain field rule (src/domain/field-rules.ts): the rule's words are the 400's. */
export const withRule =
  <T>(rule: (value: T) => string | undefined) =>
  (value: T, ctx: z.RefinementCtx<T>) => {
    const broken = rule(value);
    if (broken !== undefined) ctx.addIssue({ code: "custom", message: broken, input: value });
  };

/**
 * Bounds every request's input has, whatever the route: the body's bytes, its nesting, and the entries of
 * any one array or object in it (each route's schema bounds its own fields more tightly; this one makes a
 * body of 100,000 items a 400 before any schema walks them).
 */
export const INPUT_LIMITS = { bodyBytes: 1024 * 1024, depth: 32, entries: 1000 } as const;

/** A JSON media type (application/json, application/merge-patch+json, …), with or without parameters. */
export const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** The 400 of a route that requires a JSON body and was sent none, an empty one, or one of another type. */
export const BODY_REQUIRED = "body: required, a JSON object sent with Content-Type: application/json";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored: U+0000 (PostgreSQL text refuses it) or an unpaired UTF-16 surrogate. */
export function textProblem(s: string): string | undefined {
  if (s.includes("\u0000")) return "must not contain U+0000 (NUL)";
  if (LONE_SURROGATE.test(s)) return "must not contain unpaired UTF-16 surrogates";
  return undefined;
}

const describePath = (path: (string | number)[]) => {
  const shown = path.length > 8 ? [...path.slice(0, 8), "…"] : path;
  return shown.length ? shown.join(".") : "body";
};

/**
 * The first string or key in a parsed JSON body that `textProblem` refuses, or nesting deeper than
 * INPUT_LIMITS.depth, as a message naming the field. Walks without recursion, so no depth can
 * overflow the stack.
 */
export function jsonBodyProblem(body: unknown): string | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      const problem = textProblem(value);
      if (problem) return `${describePath(path)}: ${problem}`;
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (path.length >= INPUT_LIMITS.depth) return `${describePath(path)}: nested more than ${INPUT_LIMITS.depth} levels deep`;
    const count = Array.isArray(value) ? value.length : Object.keys(value).length;
    if (count > INPUT_LIMITS.entries) {
      return `${describePath(path)}: at most ${INPUT_LIMITS.entries} ${Array.isArray(value) ? "items" : "fields"} (${count} given)`;
    }
    const entries = Array.isArray(value) ? value.map((item, i) => [i, item] as const) : Object.entries(value as object);
    for (const [key, item] of entries) {
      if (typeof key === "string") {
        const problem = textProblem(key);
        if (problem) return `${describePath(path)}: field names ${problem}`;
      }
      stack.push({ value: item, path: [...path, key] });
    }
  }
  return undefined;
}
