// `cardlink logs tail|list|show`: the request log of the key's environment (GET /v1/requests) — followed live
// with a long-poll (`order=asc&after=<last>&wait=25`: the server answers as soon as a request is written), the
// latest requests, or one request with its bodies (card numbers and secrets masked by the server).
import { command, print, UsageError, wholeNumber } from "../args.ts";
import { instantOption } from "../instant-option.ts";
import { REQUEST_METHODS, STATUS_FILTER } from "../../domain/request-log.ts";
import type { paths, Schemas } from "../../../clients/typescript/src/index.ts";

type RequestRecord = Schemas["RequestRecord"];
type ListQuery = NonNullable<paths["/v1/requests"]["get"]["parameters"]["query"]>;

const text = { type: "string" } as const;
/** The server's longest wait is 30 s; a little less keeps clear of proxies' idle timeouts. */
const WAIT_SECONDS = "25";
/** How often a follower with nothing to follow yet (an environment with no request) looks (real ms). */
const LOOK_EVERY_MS = 1_000;

/** One line a request: time, [status], method, path and query, error code, latency, [request id]. */
export const requestLine = (r: RequestRecord) =>
  `${r.created.slice(0, 19).replace("T", " ")} [${r.status}] ${r.method} ${r.path}${r.query ? `?${r.query}` : ""}` +
  `${r.errorCode ? ` ${r.errorCode}` : ""} ${r.latencyMs} ms [${r.id}]`;

/** A body as sent: pretty-printed when it is whole JSON. */
function bodyLines(what: string, body: { body: string | null; truncated: boolean }): string[] {
  if (body.body === null) return [`${what}: none`];
  let shown = body.body;
  if (!body.truncated) {
    try {
      shown = JSON.stringify(JSON.parse(body.body), null, 2);
    } catch {
      // Not JSON: shown as it came.
    }
  }
  return [`${what}${body.truncated ? " (cut at 16 KiB)" : ""}:`, shown];
}

/** The filters every subcommand takes, checked here as the server would, so a typo is a usage error. */
function filtersOf(values: { status?: string | undefined; path?: string | undefined; method?: string | undefined }): ListQuery {
  const filters: ListQuery = {};
  if (values.status !== undefined) {
    if (!STATUS_FILTER.test(values.status)) throw new UsageError("--status: must be a status such as 404 or a class such as 4xx");
    filters.status = values.status;
  }
  if (values.path !== undefined) {
    if (!values.path.startsWith("/")) throw new UsageError("--path: must be a path such as /v1/transactions (`*` for any characters: /v1/programs/*/cards)");
    filters.path = values.path;
  }
  if (values.method !== undefined) {
    const method = REQUEST_METHODS.find((m) => m === values.method!.toUpperCase());
    if (!method) throw new UsageError(`--method: must be one of ${REQUEST_METHODS.join(", ")}`);
    filters.method = method;
  }
  return filters;
}

export const logs = command({
  usage: `  logs tail [--status 4xx] [--path P] [--method M] [--json] [--key K] [--sandbox ID] [--url URL]
                            follow the requests made in the key's environment as they happen: one line each
                            (time, [status], method, path, error code, latency, [request id]), or each record
                            with its bodies as one JSON line with --json; --status takes 404 or a class such as
                            4xx, --path a path and what is under it (* for any characters); Ctrl-C stops
  logs list [--status …] [--path …] [--method M] [--since ISO] [--until ISO] [--limit 20] [--json] [--key K] [--sandbox ID] [--url URL]
                            the latest requests of the key's environment, newest first
  logs show REQUEST_ID [--json] [--key K] [--sandbox ID] [--url URL]
                            one request (the Request-Id of its answer) with the body it sent and the answer's,
                            card numbers and secrets masked
`,
  options: {
    key: text,
    url: text,
    sandbox: text,
    status: text,
    path: text,
    method: text,
    since: text,
    until: text,
    limit: text,
    json: { type: "boolean", default: false },
  },
  positionals: true,
  async run({ values, positionals }, config) {
    const [sub, id, ...rest] = positionals;
    if (sub !== "tail" && sub !== "list" && sub !== "show") throw new UsageError("logs: the subcommand is tail, list or show (cardlink help logs shows its usage)");
    if (sub === "show" ? id === undefined || !/^req_[A-Za-z0-9]{1,64}$/.test(id) : id !== undefined) {
      throw new UsageError(sub === "show" ? "logs show: name the request's id, req_…, as the Request-Id header of its answer or `logs list` gives it" : `logs ${sub}: takes no argument ${id}`);
    }
    if (rest.length > 0) throw new UsageError(`logs ${sub}: takes no argument ${rest[0]}`);
    if (sub !== "list") {
      for (const option of ["since", "until", "limit"] as const) if (values[option] !== undefined) throw new UsageError(`--${option}: only for logs list`);
    }
    if (sub === "show") {
      for (const option of ["status", "path", "method"] as const) if (values[option] !== undefined) throw new UsageError(`--${option}: not for logs show, which reads one request`);
    }
    const filters = filtersOf(values);
    const { answer, connect } = await import("../connection.ts");
    const conn = connect(config, values);
    const list = (query: ListQuery) => answer(conn.url, conn.client.GET("/v1/requests", { params: { query } }));

    if (sub === "show") {
      const r = await answer(conn.url, conn.client.GET("/v1/requests/{requestLogId}", { params: { path: { requestLogId: id! } } }));
      if (values.json) return print([JSON.stringify(r)]);
      return print([
        requestLine(r),
        `key ${r.keyId} (${r.live ? "live" : "test"}, ${r.source})${r.idempotencyKey ? `, Idempotency-Key ${r.idempotencyKey}` : ""}`,
        ...bodyLines("request body", r.request),
        ...bodyLines("answer body", r.response),
      ]);
    }

    if (sub === "list") {
      const limit = values.limit === undefined ? 20 : wholeNumber("limit", values.limit, 1, 100);
      const query = {
        ...filters,
        limit: String(limit),
        ...(values.since !== undefined ? { since: instantOption("since", values.since) } : {}),
        ...(values.until !== undefined ? { until: instantOption("until", values.until) } : {}),
      };
      const page = await list(query);
      if (values.json) return print([JSON.stringify(page.items)]);
      return print(page.items.length === 0 ? ["no requests match"] : page.items.map(requestLine));
    }

    // tail: from the newest request there is now (whatever it is), every one written after it that matches.
    const status = values.json ? (line: string) => void process.stderr.write(`${line}\n`) : (line: string) => print([line]);
    let after = (await list({ limit: "1" })).items[0]?.id;
    process.once("SIGINT", () => process.exit(0));
    process.once("SIGTERM", () => process.exit(0));
    const where = conn.sandbox ? `sandbox ${conn.sandbox} (${conn.live ? "live" : "test"})` : conn.live ? "the live environment" : "the test environment";
    const shown = Object.entries(filters).map(([k, v]) => `${k} ${v}`).join(", ");
    status(`following the requests of ${where} at ${conn.url}${shown ? ` (${shown})` : ""}; Ctrl-C stops`);
    for (;;) {
      // Without a request to follow from (the environment had none), every matching one is new: looked for every
      // second until there is one (a long-poll needs a request to wait after).
      const page = await list({ ...filters, order: "asc", ...(after ? { after, wait: WAIT_SECONDS } : {}) });
      for (const r of page.items) print([values.json ? JSON.stringify(r) : requestLine(r)]);
      after = page.items.at(-1)?.id ?? after;
      if (!after) await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
    }
  },
});
