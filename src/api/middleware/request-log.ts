// The request log's capture: every /v1 request whose key is known (whatever its answer: a 400, a 404, a 429 the
// key's budget gave, the dashboard's calls for a signed-in key) is handed to the writer once answered, in the
// environment it acted in, under its request id. Nothing here waits on the database: the writer masks, cuts
// and writes off the request path (src/services/request-log/writer.ts).
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { holdBody, type HeldBody } from "../../domain/request-log.ts";
import { environmentNow } from "../../platform/clock/environment.ts";
import { calledByDashboard } from "./auth.ts";
import { IDEMPOTENCY_HEADER } from "./idempotency.ts";

/** Reading the log is not logged: a reader that follows it (`logs tail`, the dashboard's page) would feed itself. */
const READS_THE_LOG = /^\/v1\/requests(\/|$)/;

type AnyResponder = (...args: unknown[]) => Response;

/**
 * The text of the answer the request is given, as the route makes it: `c.json` and `c.body` of this request
 * note the text they answer with. (Reading it back from the Response would need a clone, which makes the
 * node server send the body through a stream instead of the string it has.)
 */
function noteAnswer(c: Context<AppEnv>): { text: string | undefined } {
  const noted: { text: string | undefined } = { text: undefined };
  const body = c.body as unknown as AnyResponder;
  c.body = ((data: unknown, ...rest: unknown[]) => {
    if (typeof data === "string") noted.text = data;
    return body(data, ...rest);
  }) as typeof c.body;
  // What Hono's own c.json does, with the text kept.
  c.json = ((object: unknown, arg?: unknown, headers?: Record<string, string | string[]>) => {
    const text = JSON.stringify(object);
    noted.text = text;
    return body(text, arg, { "Content-Type": "application/json", ...headers });
  }) as typeof c.json;
  return noted;
}

/** Whether the request carries a body by its headers (a length above 0, or chunked). */
const hasBody = (request: Request) => {
  const length = request.headers.get("content-length");
  return (length !== null && length.trim() !== "0") || request.headers.has("transfer-encoding");
};

/** The request's body as received, when it has one: as the route read it, or read now (refused before a route read it). */
async function requestBody(c: Context<AppEnv>): Promise<HeldBody | null> {
  // Hono keeps the text it read as a promise (its type says string).
  const cached = c.req.bodyCache.text as unknown as Promise<string> | undefined;
  const read = cached ?? (hasBody(c.req.raw) ? c.req.text() : undefined);
  if (!read) return null;
  // A body over the size bound was never read (413): there is none to keep.
  const text = await read.catch(() => undefined);
  return text === undefined || text === "" ? null : holdBody(text);
}

export const recordRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { path, method } = c.req;
  if (path === "/v1/openapi.json" || READS_THE_LOG.test(path)) return next();
  const { clock, requestLog } = c.get("runtime");
  // The service clock's reading at arrival; the caller's environment adds its own offset once it is known.
  const arrived = clock.now();
  const offsetMs = clock.offsetMs;
  const answer = noteAnswer(c);
  await next();
  const caller = c.get("keyHolder");
  if (!caller) return;
  const url = c.req.url;
  const q = url.indexOf("?");
  requestLog.add({
    id: c.get("requestId"),
    accountId: caller.account.id,
    live: caller.live,
    keyId: caller.keyId,
    source: calledByDashboard(c) ? "dashboard" : "api",
    method,
    path,
    query: q < 0 || q === url.length - 1 ? null : url.slice(q + 1),
    status: c.res.status,
    latencyMs: performance.now() - c.get("receivedMs"),
    idempotencyKey: c.req.header(IDEMPOTENCY_HEADER) ?? null,
    created: environmentNow({ now: () => arrived, offsetMs }, caller.clock),
    request: await requestBody(c),
    response: answer.text === undefined || answer.text === "" ? null : holdBody(answer.text),
  });
};
