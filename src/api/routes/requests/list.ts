// GET /requests — the environment's request log: every /v1 request its keys made, newest first (or oldest
// first), with filters, the cursor and both bodies; `after` and `wait` follow it as it grows (`cardlink logs tail`).
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { invalid } from "../../errors.ts";
import { codePoints, commonErrors, instantQuery, invalidWhen, jsonResponse, limitParam, listOf, startParam } from "../../schemas.ts";
import { listRequests } from "../../../services/request-log/index.ts";
import { REQUEST_METHODS, STATUS_FILTER } from "../../../domain/request-log.ts";
import { RequestRecordSchema, requestIdParam } from "./schemas.ts";

/** The longest `wait`, in seconds (its pattern says the same). */
const MAX_WAIT_SECONDS = 30;
/** How often a wait looks again for records other api processes wrote (real ms); this process's rounds wake it at once. */
const LOOK_EVERY_MS = 1_000;

const query = z.object({
  limit: limitParam,
  start: startParam,
  status: z
    .string()
    .max(3, "must be a status such as 404 or a class such as 4xx")
    .regex(STATUS_FILTER, "must be a status such as 404 or a class such as 4xx")
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "One status (`404`) or a class of them (`4xx`).", example: "4xx", pattern: STATUS_FILTER.source }),
  method: z
    .enum(REQUEST_METHODS, { message: `must be one of ${REQUEST_METHODS.join(", ")}` })
    .optional()
    .openapi({ param: { name: "method", in: "query" } }),
  source: z
    .enum(["api", "dashboard"], { message: "must be api or dashboard" })
    .optional()
    .openapi({ param: { name: "source", in: "query" }, description: "`api`: requests sent with a key over HTTP. `dashboard`: the dashboard's calls for a signed-in key." }),
  path: z
    .string()
    .regex(/^\/[^?#]*$/, "must be a path starting with /, without ? or #")
    .refine((p) => codePoints(p) <= 256, "must be at most 256 characters")
    .optional()
    .openapi({
      maxLength: 256,
      param: { name: "path", in: "query" },
      description: "Requests to this path and those under it (`/v1/cards` takes `/v1/cards/{id}` too); `*` stands for any characters (`/v1/programs/*/cards`).",
      example: "/v1/transactions",
    }),
  since: instantQuery("since", "Requests that arrived at or after this time of the environment (a sandbox's own clock)."),
  until: instantQuery("until", "Requests that arrived before this time of the environment."),
  after: requestIdParam("after", "query")
    .optional()
    .openapi({ description: "Only the requests written to the log after this one (its id), to follow the log: pass the id of the last request you have." }),
  order: z
    .enum(["desc", "asc"], { message: "must be desc or asc" })
    .optional()
    .openapi({ param: { name: "order", in: "query" }, description: "`desc` (default): newest first. `asc`: oldest first, as a follower reads." }),
  wait: z
    .string()
    .max(2, `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`)
    .regex(/^(0?[0-9]|[12][0-9]|30)$/, `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`)
    .transform(Number)
    .optional()
    .openapi({
      param: { name: "wait", in: "query" },
      description:
        `With \`after\`: when no request matches yet, wait up to this many seconds (0 to ${MAX_WAIT_SECONDS}) for one to be written, ` +
        "then answer (a long-poll; an empty page when none came).",
      type: "string",
      pattern: "^(0?[0-9]|[12][0-9]|30)$",
      maxLength: 2,
      example: "25",
    }),
});

export const route = createRoute({
  method: "get",
  path: "/requests",
  tags: ["Request log"],
  summary: "List the environment's requests",
  description:
    "Every /v1 request made with a key of this environment (a sandbox is one of its own), whatever its answer (a 400, a 404, a 429 " +
    "included), the dashboard's calls for a signed-in key too; reading the log (GET /requests…) is not logged. Each record has the " +
    "method, path, status, error code, latency, key, and both bodies with card numbers and secrets masked. Newest first in the order " +
    "they were written (`order=asc`: oldest first). Records are written in batches a moment after their answer, and kept for " +
    "REQUEST_LOG_RETENTION_DAYS (7 by default) of the environment's time. To follow the log: `order=asc&after=<the last id you have>&wait=25`.",
  request: { query },
  responses: {
    200: jsonResponse(listOf(RequestRecordSchema, "RequestRecordList"), "A page of requests."),
    ...commonErrors,
    400: invalidWhen([
      "`until` must be after `since`",
      "`after` must name a request in this environment's log (`after: no request … in this environment's log`)",
      "`wait` needs `after` (`wait: …`)",
    ]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit = 100, start, status, method, source, path, since, until, after, order, wait = 0 } = c.req.valid("query");
  if (since && until && new Date(until) <= new Date(since)) throw invalid("until", "must be after since");
  if (wait > 0 && !after) throw invalid("wait", "needs after: the id of the last request you have (a long-poll waits for what follows it)");
  const { runtime: services, caller } = c.var;
  const ctx = ctxOf(services, caller);
  const list = () =>
    listRequests(
      ctx,
      {
        ...(status ? { status } : {}),
        ...(method ? { method } : {}),
        ...(source ? { source } : {}),
        ...(path ? { path } : {}),
        ...(since ? { since: new Date(since) } : {}),
        ...(until ? { until: new Date(until) } : {}),
        ...(after ? { after } : {}),
      },
      { limit, start, ...(order ? { order } : {}) },
    );
  let page = await list();
  // A long-poll: woken by this process's next written round, else it looks again every second.
  const deadline = performance.now() + wait * 1000;
  while (page.items.length === 0 && performance.now() < deadline) {
    if (!(await services.requestLog.nextRound(Math.min(LOOK_EVERY_MS, deadline - performance.now()), c.req.raw.signal))) break;
    page = await list();
  }
  return c.json(page, 200);
};
