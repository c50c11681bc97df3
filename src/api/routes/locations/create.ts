// POST /programs/{programId}/locations — add a merchant location of an approved brand.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, countryCode, invalidWhen, jsonBody, jsonResponse, metadataSchema, uuid } from "../../schemas.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { rule } from "../../validation.ts";
import { createLocation } from "../../../services/catalog/index.ts";
import { getProgram } from "../../../services/catalog/index.ts";
import { address, city, geolocation, LocationSchema, mids, postcode, timezone } from "./schemas.ts";

const body = z
  .strictObject({
    address,
    brandId: z.uuid(rule("must be a UUID")).openapi({ description: "One of your brands, with approved consent." }),
    city,
    countryCode,
    postcode,
    status: z.literal("syncing", { message: "the only value is syncing" }).optional().openapi({
      description: "`syncing` starts the location's sync with the networks at once. Live programs and live keys only.",
    }),
    timezone: timezone.optional(),
    geolocation,
    metadata: metadataSchema,
    mids,
  })
  .openapi("LocationCreate", {
    example: {
      address: "1 High Street",
      brandId: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b",
      city: "London",
      countryCode: "GBR",
      postcode: "SW1A 1AA",
      mids: { visa: [{ vmid: "12345678" }] },
    },
  });

export const route = createRoute({
  method: "post",
  path: "/programs/{programId}/locations",
  tags: ["Locations"],
  summary: "Add a location",
  description:
    "Adds a location of one of your brands (its consent must be `approved`). Test: Active on every scheme at " +
    "once. Live: Idle on every scheme, or Syncing with `status: syncing` (a test key gets 400 for that).",
  middleware: [ownedBy("programId", getProgram)] as const,
  request: { params: z.object({ programId: uuid("programId") }), body: jsonBody(body) },
  responses: {
    201: jsonResponse(LocationSchema, "The location."),
    ...commonErrors,
    400: invalidWhen([
      "brandId: no brand with this id for this account and environment, or its consent not approved",
      "timezone: not an IANA time zone the service knows",
      "status syncing: under a test key or on a test program",
    ]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(
    await createLocation(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").programId, c.req.valid("json")),
    201,
  );
