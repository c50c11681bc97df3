// GET /brands/{brandId}
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getBrand } from "../../../services/catalog/index.ts";
import { BrandSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/brands/{brandId}",
  tags: ["Brands"],
  summary: "Get a brand",
  request: { params: z.object({ brandId: uuid("brandId") }) },
  responses: { 200: jsonResponse(BrandSchema, "The brand."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getBrand(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").brandId), 200);
