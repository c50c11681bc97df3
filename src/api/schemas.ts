// OpenAPI schemas shared by every route: the error body, list pages, ids and pagination query.
import { z } from "@hono/zod-openapi";
import { errorStatus } from "./errors.ts";
import { countryByAlpha3 } from "../domain/countries.ts";

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(errorStatus) as [keyof typeof errorStatus]),
      message: z.string().openapi({ example: "countryCode: must be an ISO 3166-1 alpha-3 code" }),
      requestId: z.string().openapi({ example: "req_9f2c1a7b3d4e5f60" }),
    }),
  })
  .openapi("Error");

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorBodySchema } },
});

/** The error responses every authenticated route can give. */
export const commonErrors = {
  400: errorResponse("Invalid request: the message names the field and the rule."),
  401: errorResponse("Missing or invalid key."),
  404: errorResponse("No such resource for this account and environment."),
  429: errorResponse("Rate limit exceeded; see Retry-After."),
} as const;

export const uuid = (name: string) =>
  z.uuid({ message: "must be a UUID" }).openapi({ param: { name, in: "path" }, example: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b" });

export const limitParam = z
  .string()
  .regex(/^\d+$/, "must be digits")
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, "must be between 1 and 100")
  .optional()
  .openapi({ param: { name: "limit", in: "query" }, description: "Page size, 1 to 100 (default 100).", example: "20", type: "string" });

export const startParam = z
  .string()
  .min(1)
  .optional()
  .openapi({ param: { name: "start", in: "query" }, description: "The `last` cursor of the previous page." });

export const pageQuery = z.object({ limit: limitParam, start: startParam });

export const listOf = <T extends z.ZodTypeAny>(item: T, name: string) =>
  z
    .object({
      items: z.array(item),
      count: z.number().int().openapi({ description: "Total number of records matching the filters." }),
      last: z.string().optional().openapi({ description: "Cursor for the next page; absent on the last page." }),
    })
    .openapi(name);

export const metadataSchema = z
  .record(z.string(), z.unknown())
  .nullable()
  .optional()
  .openapi({ description: "Your own data, returned as given.", example: { externalId: "abc-123" } });

export const jsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

export const jsonResponse = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** An ISO 3166-1 alpha-3 country code known to src/domain/countries.ts. */
export const countryCode = z
  .string()
  .refine((c) => countryByAlpha3(c) !== undefined, "must be an ISO 3166-1 alpha-3 code, such as GBR or USA")
  .openapi({ description: "ISO 3166-1 alpha-3 country code.", example: "GBR" });
