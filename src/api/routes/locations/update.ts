// PATCH /locations/{locationId} — change a location's address, time zone, position, metadata or MIDs.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse, metadataSchema, uuid } from "../../schemas.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { getLocation, updateLocation } from "../../../services/catalog/index.ts";
import { address, city, geolocation, LocationSchema, mids, postcode, timezone } from "./schemas.ts";

const body = z
  .strictObject({
    address: address.optional(),
    city: city.optional(),
    postcode: postcode.optional(),
    timezone: timezone.optional(),
    geolocation,
    metadata: metadataSchema,
    mids,
  })
  .openapi("LocationUpdate", {
    description:
      "Fields to change; fields left out keep their value. `geolocation: null` and `metadata: null` clear them. " +
      "Each scheme given in `mids` replaces that scheme's MIDs. On a test location the MIDs given go to that scheme's " +
      "test network as a new onboarding request, answered at once; until it answers, purchases there on that scheme wait " +
      "for it. `[]` leaves the scheme with no MIDs: a test purchase there is then refused (400, locationId). The brand " +
      "and the country cannot change: add a " +
      "new location instead.",
    example: { postcode: "SW1A 2AA", mids: { amex: [{ seNumber: "1234567890" }] } },
  });

export const route = createRoute({
  method: "patch",
  path: "/locations/{locationId}",
  tags: ["Locations"],
  summary: "Update a location",
  middleware: [ownedBy("locationId", getLocation)] as const,
  request: { params: z.object({ locationId: uuid("locationId") }), body: jsonBody(body) },
  responses: {
    200: jsonResponse(LocationSchema, "The location."),
    ...commonErrors,
    400: invalidWhen(["timezone: not an IANA time zone the service knows"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(
    await updateLocation(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").locationId, c.req.valid("json")),
    200,
  );
