// GET /brands — the caller's brands in the key's environment, newest first.
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, listOf, pageQuery } from "../../schemas.ts";
import { listBrands } from "../../../services/catalog/index.ts";
import { BrandSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/brands",
  tags: ["Brands"],
  summary: "List brands",
  request: { query: pageQuery },
  responses: { 200: jsonResponse(listOf(BrandSchema, "BrandList"), "A page of brands."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start } = c.req.valid("query");
  return c.json(await listBrands(ctxOf(c.var.runtime, c.var.caller), { limit, start }), 200);
};
