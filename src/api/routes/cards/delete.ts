// DELETE /cards/{cardId} — unenrol a card.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, uuid } from "../../schemas.ts";
import { deleteCard } from "../../../services/catalog/index.ts";

export const route = createRoute({
  method: "delete",
  path: "/cards/{cardId}",
  tags: ["Cards"],
  summary: "Delete a card",
  description: "Unenrols the card: it is removed from the program and every read.",
  request: { params: z.object({ cardId: uuid("cardId") }) },
  responses: { 204: { description: "Deleted." }, ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  await deleteCard(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").cardId);
  return c.body(null, 204);
};
