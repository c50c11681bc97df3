// POST /brands — create a brand and request its consent.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonBody, jsonResponse, metadataSchema, trimmedText } from "../../schemas.ts";
import { createBrand } from "../../../services/catalog/index.ts";
import { BrandSchema } from "./schemas.ts";

const body = z
  .strictObject({
    name: trimmedText(200),
    logoUrl: z
      .url({ protocol: /^https?$/, message: "must be an http or https URL" })
      .max(2048, "must be at most 2048 characters")
      .nullable()
      .optional()
      .openapi({ description: "The brand's logo, shown on offers and transactions." }),
    metadata: metadataSchema,
  })
  .openapi("BrandCreate", { example: { name: "Coffee House", logoUrl: "https://example.com/logo.png" } });

export const route = createRoute({
  method: "post",
  path: "/brands",
  tags: ["Brands"],
  summary: "Create a brand",
  description:
    "Creates a brand in the key's environment. With a test key its consent is `approved` at once; with a " +
    "live key it is `requested` and the simulated brand approves it 1 to 3 days later on the service clock.",
  request: { body: jsonBody(body) },
  responses: { 201: jsonResponse(BrandSchema, "The brand."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await createBrand(ctxOf(c.var.runtime, c.var.caller), c.req.valid("json")), 201);
