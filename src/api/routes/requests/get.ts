// GET /requests/{requestLogId} — one request of the environment's log, by its request id.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse } from "../../schemas.ts";
import { getRequest } from "../../../services/request-log/index.ts";
import { RequestRecordSchema, requestIdParam } from "./schemas.ts";

export const route = createRoute({
  method: "get",
  path: "/requests/{requestLogId}",
  tags: ["Request log"],
  summary: "Get a request",
  description:
    "One request of the environment's log by its request id: the `Request-Id` header of its answer (and `error.requestId` of an " +
    "error). Another account's, another sandbox's or the other environment's request is 404, as is one not yet written (records " +
    "are written a moment after their answer) or past the retention.",
  request: { params: z.object({ requestLogId: requestIdParam("requestLogId", "path") }) },
  responses: { 200: jsonResponse(RequestRecordSchema, "The request."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(await getRequest(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").requestLogId), 200);
