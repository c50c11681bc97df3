// How the commands that talk to a running Cardlink (`trigger`, `listen`, `logs`, `run`, `sandbox`, `clock`, `keys`, `faults`, `traffic`) reach it: the URL from --url,
// CARDLINK_URL, the server holding DATA_DIR (the URL it records in its lock) or http://localhost:3000; the key from --key or the demo test key `npm start` keeps
// in credentials.json, and with --sandbox ID the `<service>-Sandbox` header that lets an account's key act in one of its sandboxes; the admin token from
// ADMIN_TOKEN or credentials.json. They speak the typed client of clients/typescript.
import { randomUUID } from "node:crypto";
import { resolve as resolvePath } from "node:path";
import { createAdminClient, createCardlinkClient, type CardlinkClient } from "../../clients/typescript/src/index.ts";
import type { Config } from "../platform/config/index.ts";
import { knownAdminToken, readCredentials } from "../platform/config/credentials.ts";
import { lockHolder } from "../platform/config/data-dir-holder.ts";
import { DataDirLockedError, usesDataDir } from "../app/data-dir-lock.ts";
import { UUID_PATTERN } from "../platform/ids.ts";
import { CommandError, UsageError } from "./args.ts";

export const DEFAULT_URL = "http://localhost:3000";

/** --url, else CARDLINK_URL, else the URL the server running on DATA_DIR serves, else DEFAULT_URL. */
export function serverUrl(given: string | undefined, env: Record<string, string | undefined>, dataDir?: string): string {
  const url = given ?? (env.CARDLINK_URL || undefined) ?? (dataDir === undefined ? undefined : lockHolder(dataDir)?.url) ?? DEFAULT_URL;
  if (!/^https?:\/\/[^/]+/.test(url)) throw new UsageError(`--url: must be an http(s) URL such as ${DEFAULT_URL}`);
  return url.replace(/\/+$/, "");
}

export interface Connection {
  url: string;
  key: string;
  live: boolean;
  /** The sandbox the account's key acts in (the `<service>-Sandbox` header), if any. */
  sandbox?: string | undefined;
  client: CardlinkClient;
}

/** The header that lets an account's key act in one of its sandboxes, named like the key's (`Cardlink-Sandbox`). */
export const sandboxHeader = (serviceName: string) => `${serviceName}-Sandbox`;

/** Tries of one request answered 429 or 503, the answers a service gives when it cannot take it now. */
const TRANSIENT_TRIES = 4;
/** The longest `Retry-After` waited for between them. */
const MAX_RETRY_AFTER_MS = 10_000;

/**
 * `fetch`, sending the request again after its `Retry-After` (at most 10 s, up to four tries) while it is
 * answered 429 or 503, which made nothing (docs/api.md), unless `accept` is that very status. A POST
 * carries one `Idempotency-Key` over its tries (its own, or a fresh one), so a retry of an answer that did
 * make something replays it instead of making it twice.
 */
export async function fetchRetrying(request: Request, accept?: number): Promise<Response> {
  if (request.method === "POST" && !request.headers.has("Idempotency-Key")) request.headers.set("Idempotency-Key", randomUUID());
  for (let tries = 1; ; tries++) {
    const res = await fetch(request.clone());
    if ((res.status !== 429 && res.status !== 503) || res.status === accept || tries >= TRANSIENT_TRIES) return res;
    await res.arrayBuffer();
    const after = Number(res.headers.get("retry-after"));
    await new Promise((r) => setTimeout(r, Math.min(MAX_RETRY_AFTER_MS, Number.isFinite(after) && after > 0 ? after * 1000 : 1000)));
  }
}

/** A connection with `key` at `url`, in `sandbox` when given (its test environment for a test key, its live for a live one). */
export function connection(url: string, key: string, serviceName: string, sandbox?: string): Connection {
  const client = createCardlinkClient({ baseUrl: url, key, serviceName, fetch: (request) => fetchRetrying(request as Request) });
  if (sandbox !== undefined) {
    client.use({
      onRequest: ({ request }) => {
        request.headers.set(sandboxHeader(serviceName), sandbox);
        return request;
      },
    });
  }
  return { url, key, live: key.startsWith("sk_live_"), sandbox, client };
}

/** A sandbox id as --sandbox takes it, else a UsageError. */
export function sandboxOption(value: string | undefined): string | undefined {
  if (value !== undefined && !UUID_PATTERN.test(value)) throw new UsageError("--sandbox: must be a sandbox id (UUID), as `sandbox list` prints it");
  return value;
}

export function connect(config: Config, given: { url?: string | undefined; key?: string | undefined; sandbox?: string | undefined }): Connection {
  const url = serverUrl(given.url, process.env, config.DATA_DIR);
  const key = given.key ?? readCredentials(config).demo?.test;
  if (!key) {
    throw new UsageError(`--key: give a secret key, or run \`npm start\` once: it keeps a demo test key in ${config.DATA_DIR}/credentials.json`);
  }
  if (!/^sk_(test|live)_/.test(key)) throw new UsageError("--key: must be a secret key, sk_test_… or sk_live_…");
  return connection(url, key, config.SERVICE_NAME, sandboxOption(given.sandbox));
}

/** The admin token for /admin calls: ADMIN_TOKEN, or the one `npm start` generated and kept. */
function adminToken(config: Config): string {
  const token = knownAdminToken(config);
  if (!token) throw new UsageError(`set ADMIN_TOKEN, or run \`npm start\` once: it keeps the generated token in ${config.DATA_DIR}/credentials.json`);
  return token;
}

/** The typed client of the /admin API at the server `connect` would find, with the operator's token. */
export function connectAdmin(config: Config, given: { url?: string | undefined }) {
  const url = serverUrl(given.url, process.env, config.DATA_DIR);
  return { url, admin: createAdminClient({ baseUrl: url, adminToken: adminToken(config) }) };
}

/**
 * The server a data-changing task (`account create`, `mid-insights seed`) goes through: the one holding
 * DATA_DIR, whose embedded database no other process may open; undefined when none does (the task opens
 * the database itself).
 */
export function dataDirServer(config: Config) {
  if (!usesDataDir(config, { bus: false })) return undefined;
  const holder = lockHolder(config.DATA_DIR);
  if (!holder) return undefined;
  if (!holder.url) throw new DataDirLockedError(resolvePath(config.DATA_DIR), holder);
  const token = knownAdminToken(config);
  if (!token) throw new UsageError(`ADMIN_TOKEN: set it to the admin token of the server at ${holder.url} (it holds ${config.DATA_DIR})`);
  return { url: holder.url, admin: createAdminClient({ baseUrl: holder.url, adminToken: token }) };
}

/** Why a request to `url` found no server, in words: `cannot reach Cardlink at URL (the network's reason)`. */
export const unreachable = (url: string, err: unknown) =>
  `cannot reach Cardlink at ${url} (${err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err)})`;

/** The answer's data (undefined for 204), or a CommandError with the API's message (or why the server could not be reached). */
export async function answer<T>(url: string, call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (err) {
    throw new CommandError(`${unreachable(url, err)}; is \`npm start\` running? (--url or CARDLINK_URL to point elsewhere)`);
  }
  if (result.response.ok) return result.data as T;
  const body = result.error as { error?: { code?: string; message?: string } } | undefined;
  throw new CommandError(`${result.response.status} ${body?.error?.code ?? ""}: ${body?.error?.message ?? result.response.statusText}`);
}
