// GET /cards/{cardId}
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, uuid } from "../../schemas.ts";
import { getCard } from "../../../services/catalog/index.ts";
import { CardSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/cards/{cardId}",
  tags: ["Cards"],
  summary: "Get a card",
  request: { params: z.object({ cardId: uuid("cardId") }) },
  responses: { 200: jsonResponse(CardSchema, "The card."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getCard(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").cardId), 200);
