// What dashboard handlers reach: the API's services, the session, and the in-process API call that
// every read and action goes through, so each validation rule and error message is the API's own.
import type { Context } from "hono";
import type { AppEnv, Caller } from "../api/context.ts";
import type { Flash, KeySession, Session } from "./session.ts";

/**
 * The API as the dashboard reaches it: its routes run in this process, without HTTP, for the caller a
 * session names (null: the operator, whose request carries the admin token), at the API's current version.
 */
export type ApiPort = (request: Request, caller: Caller | null) => Promise<Response>;

export interface DashboardDeps {
  adminToken: string;
  secret: string;
  api: ApiPort;
}

export interface DashEnv {
  Variables: AppEnv["Variables"] & { session: Session; flash?: Flash; deps: DashboardDeps };
}

export type DashContext = Context<DashEnv>;

/** A handler's context on a path with parameters (`"/offers/:id"`), so that `c.req.param` knows them. */
export type RouteContext<P extends string> = Context<DashEnv, P>;

export interface ApiErrorBody {
  code: string;
  message: string;
}

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: ApiErrorBody };

/** The session of a key's page: the session check sends the operator to the operator's pages before any runs. */
export function keySession(c: DashContext): KeySession {
  const session = c.var.session;
  if (session.kind !== "key") throw new Error(`${c.req.path} is a key's page, reached with the operator's session`);
  return session;
}

/** Calls the API as the session's caller: the environment the session acts in (a key's, or a sandbox's), or the operator. */
export const callApi = <T>(c: DashContext, method: string, path: string, body?: unknown): Promise<ApiResult<T>> =>
  call<T>(c, callerOf(c.var.session), method, path, body);

/**
 * Calls the API in the signed-in key's own environment, wherever the session acts: sandboxes are made,
 * listed and deleted with the account's own key.
 */
export const callAccountApi = <T>(c: DashContext, method: string, path: string, body?: unknown): Promise<ApiResult<T>> =>
  call<T>(c, c.var.session.kind === "key" ? c.var.session.key : null, method, path, body);

const callerOf = (session: Session): Caller | null => (session.kind === "key" ? session.caller : null);

async function call<T>(c: DashContext, caller: Caller | null, method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  const headers: Record<string, string> = {};
  if (!caller) headers.Authorization = `Bearer ${c.var.deps.adminToken}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const request = new Request(new URL(path, "http://dashboard.internal"), {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const res = await c.var.deps.api(request, caller);
  if (res.status === 204) return { ok: true, status: 204, data: undefined as T };
  const json = (await res.json()) as T & { error?: ApiErrorBody };
  if (!res.ok) return { ok: false, status: res.status, error: json.error ?? { code: "internal_error", message: res.statusText } };
  return { ok: true, status: res.status, data: json };
}

/** The raw API answer, for downloads streamed through to the browser. */
export async function fetchApi(c: DashContext, path: string): Promise<Response> {
  return c.var.deps.api(new Request(new URL(path, "http://dashboard.internal")), callerOf(c.var.session));
}

/** A failed read the page cannot do without: shown as the page, with the API's status and message. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly error: ApiErrorBody,
  ) {
    super(error.message);
  }
}

export function must<T>(result: ApiResult<T>): T {
  if (!result.ok) throw new PageError(result.status, result.error);
  return result.data;
}

export interface List<T> {
  items: T[];
  count: number;
  last?: string;
}

/** A query string from the given values, leaving out empty ones. */
export function qs(values: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== null && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}
