// GET /programs/{programId}/locations — the program's locations, newest first, optionally of one brand
// or linked to one offer.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, limitParam, listOf, startParam, uuid } from "../../schemas.ts";
import { listLocations } from "../../../services/catalog/index.ts";
import { linkedToOffer } from "../../../services/offers/index.ts";
import { LocationSchema } from "./schemas.ts";

const query = z.object({
  limit: limitParam,
  start: startParam,
  brandId: z
    .uuid({ message: "must be a UUID" })
    .optional()
    .openapi({ param: { name: "brandId", in: "query" }, description: "Only this brand's locations." }),
  offerId: z
    .uuid({ message: "must be a UUID" })
    .optional()
    .openapi({ param: { name: "offerId", in: "query" }, description: "Only the locations this offer is linked to." }),
});

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}/locations",
  tags: ["Locations"],
  summary: "List a program's locations",
  request: { params: z.object({ programId: uuid("programId") }), query },
  responses: { 200: jsonResponse(listOf(LocationSchema, "LocationList"), "A page of locations."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start, brandId, offerId } = c.req.valid("query");
  return c.json(
    await listLocations(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").programId, { brandId, where: offerId ? linkedToOffer(offerId) : undefined }, { limit, start }),
    200,
  );
};
