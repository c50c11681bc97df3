// GET /programs/{programId}/cards — the program's enrolled cards, newest first.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, listOf, pageQuery, uuid } from "../../schemas.ts";
import { listCards } from "../../../services/catalog/index.ts";
import { CardSchema } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}/cards",
  tags: ["Cards"],
  summary: "List a program's cards",
  request: { params: z.object({ programId: uuid("programId") }), query: pageQuery },
  responses: { 200: jsonResponse(listOf(CardSchema, "CardList"), "A page of cards."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start } = c.req.valid("query");
  return c.json(
    await listCards(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").programId, { limit, start }),
    200,
  );
};
