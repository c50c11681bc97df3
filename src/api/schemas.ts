// OpenAPI schemas shared by every route: the error body, list pages, ids and pagination query.
import { z } from "@hono/zod-openapi";
import { errorStatus } from "./errors.ts";
import { COUNTRY_CODES, countryByAlpha3 } from "../domain/countries.ts";
import { EMAIL_LENGTHS } from "../domain/email-address.ts";

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(errorStatus) as [keyof typeof errorStatus]),
      message: z.string().openapi({ example: "countryCode: must be an ISO 3166-1 alpha-3 code" }),
      requestId: z.string().openapi({ example: "req_9f2c1a7b3d4e5f60" }),
    }),
  })
  .openapi("Error");

export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorBodySchema } },
});

/** The error responses every authenticated route can give. */
export const commonErrors = {
  400: errorResponse("Invalid request: the message names the field and the rule."),
  401: errorResponse("Missing or invalid key."),
  404: errorResponse("No such resource for this account and environment."),
  429: errorResponse(
    "rate_limit_exceeded: the account's request budget (RATE_LIMIT_PER_SECOND, bursts of RATE_LIMIT_BURST; test and live keys " +
      "together, on every replica) is spent, or the client address has failed authentication too often; retry after Retry-After seconds.",
  ),
} as const;

/**
 * The 400 of an operation with rules a JSON Schema cannot state (one field against another, or against
 * stored state): the usual sentence, then those rules in words. A request that breaks one is 400 naming
 * the field and the rule, like a request the schema refuses.
 */
export const invalidWhen = (rules: string[], base: string = commonErrors[400].description) =>
  errorResponse(`${base} Beyond the schema, also 400: ${rules.join("; ")}.`);

export const uuid = (name: string) =>
  z.uuid({ message: "must be a UUID" }).openapi({ param: { name, in: "path" }, example: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b" });

export const limitParam = z
  .string()
  .max(10, "must be between 1 and 100")
  .regex(/^\d+$/, "must be digits")
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, "must be between 1 and 100")
  .optional()
  .openapi({
    param: { name: "limit", in: "query" },
    description: "Page size, 1 to 100 (default 100).",
    example: "20",
    type: "string",
    pattern: "^0*([1-9][0-9]?|100)$",
    maxLength: 10,
  });

export const startParam = z
  .string()
  .min(1)
  .max(1024, "not a cursor from the `last` field of an earlier response.")
  .optional()
  .openapi({
    param: { name: "start", in: "query" },
    description:
      "The `last` cursor of the previous page, as given: cursors are opaque, and a value that is not one of them is 400.",
  });

export const pageQuery = z.object({ limit: limitParam, start: startParam });

/** An optional instant in the query (a time filter's bound), ISO 8601 with its offset. */
export const instantQuery = (name: string, description: string) =>
  z.iso
    .datetime({ offset: true, message: "must be an ISO 8601 date-time, e.g. 2026-01-05T12:00:00Z" })
    .max(64)
    .optional()
    .openapi({ param: { name, in: "query" }, description, example: "2026-01-05T12:00:00Z" });

export const listOf = <T extends z.ZodTypeAny>(item: T, name: string) =>
  z
    .object({
      items: z.array(item),
      count: z.number().int().openapi({ description: "Total number of records matching the filters." }),
      last: z.string().optional().openapi({ description: "Cursor for the next page; absent on the last page." }),
    })
    .openapi(name);

/**
 * Limits on `metadata`, as Stripe and Fidel bound theirs: what an integrator keeps beside a record,
 * not a document store.
 */
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500, depth: 3, bytes: 8192 } as const;

const L = METADATA_LIMITS;

/** The JSON Schema of a metadata value `levels` levels of nesting deep at most. */
function metadataValueJsonSchema(levels: number): Record<string, unknown> {
  const scalars = [{ type: "string", maxLength: L.valueLength }, { type: "number" }, { type: "boolean" }, { type: "null" }];
  if (levels === 0) return { anyOf: scalars };
  const inner = metadataValueJsonSchema(levels - 1);
  return {
    anyOf: [
      ...scalars,
      { type: "array", maxItems: L.keys, items: inner },
      { type: "object", maxProperties: L.keys, propertyNames: { minLength: 1, maxLength: L.keyLength }, additionalProperties: inner },
    ],
  };
}

/** A string's length as JSON Schema counts it (minLength, maxLength): in code points, not UTF-16 units. */
export const codePoints = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), spelled out: `\s` differs
 * between the regular-expression engines that read the document (Python's, Rust's, ECMAScript's).
 */
const TRIMMED = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";

/**
 * Text kept trimmed: at least one character that is not white space, at most `max` characters once trimmed,
 * counted as JSON Schema counts them (code points). The document says the same with minLength, maxLength
 * and a pattern.
 */
export const trimmedText = (max: number) =>
  z
    .string()
    .trim()
    .refine((s) => s.length > 0, "must not be empty")
    .refine((s) => codePoints(s) <= max, `must be at most ${max} characters`)
    .openapi({ minLength: 1, maxLength: max, pattern: `[^${TRIMMED}]` });

/** The first metadata rule `value` breaks, with the field it is at; undefined when it keeps them all. */
function metadataProblem(value: Record<string, unknown>): { path: (string | number)[]; message: string } | undefined {
  const stack: { value: unknown; path: (string | number)[]; depth: number }[] = [{ value, path: [], depth: 1 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === "string" && codePoints(v) > L.valueLength) return { path, message: `must be at most ${L.valueLength} characters` };
    if (v === null || typeof v !== "object") continue;
    if (depth > L.depth) return { path, message: `metadata nests at most ${L.depth} levels deep` };
    // Counted before the entries are listed: a 200,000-item array is refused without walking it.
    if ((Array.isArray(v) ? v.length : Object.keys(v).length) > L.keys) return { path, message: `at most ${L.keys} ${Array.isArray(v) ? "items" : "keys"}` };
    const entries = Array.isArray(v) ? v.map((item, i) => [i, item] as const) : Object.entries(v);
    for (const [key, item] of entries) {
      if (typeof key === "string" && (key.length === 0 || codePoints(key) > L.keyLength)) {
        return { path: [...path, key], message: `keys must be 1 to ${L.keyLength} characters` };
      }
      stack.push({ value: item, path: [...path, key], depth: depth + 1 });
    }
  }
  if (Buffer.byteLength(JSON.stringify(value)) > L.bytes) return { path: [], message: `at most ${L.bytes} bytes as JSON` };
  return undefined;
}

export const metadataSchema = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const problem = metadataProblem(value);
    if (problem) ctx.addIssue({ code: "custom", path: problem.path, message: problem.message });
  })
  .nullable()
  .optional()
  // propertyNames is JSON Schema 2020-12 (OpenAPI 3.1) that the metadata type does not list.
  .openapi({
    description:
      `Your own data, returned as given. At most ${L.keys} keys of 1 to ${L.keyLength} characters, string values ` +
      `of at most ${L.valueLength} characters, objects and arrays nested at most ${L.depth} levels deep (each with at ` +
      `most ${L.keys} keys or items), at most ${L.bytes} bytes as JSON.`,
    example: { externalId: "abc-123" },
    maxProperties: L.keys,
    propertyNames: { minLength: 1, maxLength: L.keyLength },
    additionalProperties: metadataValueJsonSchema(L.depth - 1),
  } as { description: string });

/** A JSON body the route requires: none, or an empty one, is 400 naming the body (src/api/router.ts). */
export const jsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

/**
 * A JSON body whose every field is optional: none, or an empty one under Content-Type: application/json, is
 * taken as `{}` (src/api/router.ts), as Stripe's API takes it.
 */
export const optionalJsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  required: false,
  content: { "application/json": { schema } },
});

export const jsonResponse = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/**
 * An e-mail address as zod checks it, with RFC 5321's lengths (at most 64 characters before the @, 254 in
 * all, 63 in a domain label) as `format: email` validators apply them; the document gives the same rules as a pattern.
 */
export const emailAddress = z
  .email({ message: "must be an e-mail address" })
  // Only for an address of the right shape: one that is not already has its 400 from z.email.
  .refine(
    (address) => !z.regexes.email.test(address) || EMAIL_LENGTHS.test(address),
    "must be an e-mail address (at most 64 characters before the @, 254 in all, 63 in a domain label)",
  )
  .openapi({ pattern: EMAIL_LENGTHS.source + z.regexes.email.source.replace(/^\^/, ""), maxLength: 254 });

/** An ISO 3166-1 alpha-3 country code known to src/domain/countries.ts. */
export const countryCode = z
  .string()
  .refine((c) => countryByAlpha3(c) !== undefined, "must be an ISO 3166-1 alpha-3 code, such as GBR or USA")
  .openapi({ description: "ISO 3166-1 alpha-3 country code.", example: "GBR", enum: [...COUNTRY_CODES] });
