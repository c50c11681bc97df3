// DELETE /locations/{locationId}
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, uuid } from "../../schemas.ts";
import { deleteLocation } from "../../../services/catalog/index.ts";

export const route = createRoute({
  method: "delete",
  path: "/locations/{locationId}",
  tags: ["Locations"],
  summary: "Delete a location",
  request: { params: z.object({ locationId: uuid("locationId") }) },
  responses: { 204: { description: "Deleted." }, ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  await deleteLocation(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").locationId);
  return c.body(null, 204);
};
