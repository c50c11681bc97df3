// What dashboard handlers reach: the API's services, the session, and the in-process API call that
// every read and action goes through, so each validation rule and error message is the API's own.
import type { Context } from "hono";
import type { AppEnv, Caller } from "../api/context.ts";
import type { Flash, Session } from "./session.ts";

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

export interface ApiErrorBody {
  code: string;
  message: string;
}

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: ApiErrorBody };

/** Calls the API as the session's caller: the key's account and environment, or the operator. */
export async function callApi<T>(c: DashContext, method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  const session = c.var.session;
  const headers: Record<string, string> = {};
  if (session.kind === "operator") headers.Authorization = `Bearer ${c.var.deps.adminToken}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const request = new Request(new URL(path, "http://dashboard.internal"), {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const res = await c.var.deps.api(request, session.kind === "key" ? session.caller : null);
  if (res.status === 204) return { ok: true, status: 204, data: undefined as T };
  const json = (await res.json()) as T & { error?: ApiErrorBody };
  if (!res.ok) return { ok: false, status: res.status, error: json.error ?? { code: "internal_error", message: res.statusText } };
  return { ok: true, status: res.status, data: json };
}

/** The raw API answer, for downloads streamed through to the browser. */
export async function fetchApi(c: DashContext, path: string): Promise<Response> {
  const session = c.var.session;
  return c.var.deps.api(new Request(new URL(path, "http://dashboard.internal")), session.kind === "key" ? session.caller : null);
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
