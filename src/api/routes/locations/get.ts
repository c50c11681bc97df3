// GET /locations/{locationId}
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getLocation } from "../../../services/catalog/index.ts";
import { LocationSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/locations/{locationId}",
  tags: ["Locations"],
  summary: "Get a location",
  request: { params: z.object({ locationId: uuid("locationId") }) },
  responses: { 200: jsonResponse(LocationSchema, "The location with its per-scheme status."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getLocation(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").locationId), 200);
