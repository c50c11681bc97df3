// GET /programs/{programId}/missing-transaction-requests — the program's requests, newest first.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse, limitParam, listOf, startParam, uuid } from "../../schemas.ts";
import { MISSING_REQUEST_STATUSES } from "../../../domain/missing-transaction.ts";
import { listMissingTransactionRequests } from "../../../services/missing-transactions/index.ts";
import { MissingTransactionRequestSchema } from "./schemas.ts";

const query = z.object({
  limit: limitParam,
  start: startParam,
  status: z
    .enum(MISSING_REQUEST_STATUSES, { message: "must be pending, processing, successful or failed" })
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  cardId: z.uuid({ message: "must be a UUID" }).optional().openapi({ param: { name: "cardId", in: "query" } }),
  locationId: z.uuid({ message: "must be a UUID" }).optional().openapi({ param: { name: "locationId", in: "query" } }),
  scheme: z
    .enum(["visa", "mastercard", "amex"], { message: "must be visa, mastercard or amex" })
    .optional()
    .openapi({ param: { name: "scheme", in: "query" } }),
});

export const route = createRoute({
  method: "get",
  path: "/programs/{programId}/missing-transaction-requests",
  tags: ["Missing transaction requests"],
  summary: "List a program's missing transaction requests",
  description: "Newest first. Requests for transactions older than 90 days (service clock) are no longer listed.",
  request: { params: z.object({ programId: uuid("programId") }), query },
  responses: {
    200: jsonResponse(listOf(MissingTransactionRequestSchema, "MissingTransactionRequestList"), "A page of requests."),
    ...commonErrors,
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start, ...filter } = c.req.valid("query");
  const page = await listMissingTransactionRequests(
    ctxOf(c.var.runtime, c.var.caller),
    c.req.valid("param").programId,
    Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)),
    { limit, start },
  );
  return c.json(page, 200);
};
