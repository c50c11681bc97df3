// Authentication: the management key header (`<SERVICE_NAME>-Key`), the MID-insights Bearer scheme
// with its version header and tier, and the operator's admin token.
import { timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { tenantOf, type AppEnv, type Caller } from "../context.ts";
import { ApiError } from "../errors.ts";
import { findKey, findSandboxCaller } from "../../services/accounts/index.ts";
import { sha256 } from "../../platform/ids.ts";
import { clientAddress } from "./rate-limit.ts";

export const SUPPORTED_VERSIONS = ["2024-11-25"] as const;

const unauthorized = (why: string) => new ApiError("unauthorized", why);

type Ctx = Parameters<MiddlewareHandler<AppEnv>>[0];

/**
 * Runs an authentication with the failed-authentication limit of the client's address, when it presents
 * credentials (a request without any costs no look-up and guesses nothing): an address that has spent the
 * limit is refused (429) before they are looked up, and each 401 spends a token.
 */
async function limitingFailures<T>(c: Ctx, presents: boolean, authenticate: () => Promise<T>): Promise<T> {
  const address = presents ? clientAddress(c) : undefined;
  const failures = c.var.runtime.addressLimits.failedAuth;
  if (address) failures.check(address);
  try {
    return await authenticate();
  } catch (err) {
    if (address && err instanceof ApiError && err.code === "unauthorized") failures.take(address);
    throw err;
  }
}

/**
 * The dashboard calls the API in-process (`app.fetch(request, { [INTERNAL_CALLER]: caller })`) for a
 * caller its signed session names, so it holds no key in clear. A symbol in the fetch environment
 * cannot come from an HTTP request; every other rule (environment, tier, version, rate limit) still applies.
 */
const INTERNAL_CALLER = Symbol("cardlink.internalCaller");
interface InternalEnv {
  [INTERNAL_CALLER]?: Caller;
}

/**
 * The API as the dashboard's port (src/dashboard/context.ts ApiPort): `app`'s routes in this process for
 * `caller` (null: as the request's own credentials say), at the current version unless the request names one.
 */
export const inProcessApi =
  (app: { fetch(request: Request, env: InternalEnv): Response | Promise<Response> }, serviceName: string) =>
  async (request: Request, caller: Caller | null): Promise<Response> => {
    if (!request.headers.has(`${serviceName}-Version`)) request.headers.set(`${serviceName}-Version`, SUPPORTED_VERSIONS[0]);
    return app.fetch(request, caller ? { [INTERNAL_CALLER]: caller } : {});
  };
const internalCaller = (env: unknown): Caller | undefined =>
  env && typeof env === "object" ? (env as InternalEnv)[INTERNAL_CALLER] : undefined;

/** Whether the request is the dashboard's in-process call for a signed-in key. */
export const calledByDashboard = (c: Ctx): boolean => internalCaller(c.env) !== undefined;

/** The caller of a presented key, or of the dashboard's in-process call. */
async function presented(c: Ctx, key: string | undefined, what: string) {
  const internal = internalCaller(c.env);
  if (internal) return internal;
  if (!key) return undefined;
  const found = await findKey(c.var.runtime.db, key.trim());
  if (!found) throw unauthorized(`The ${what} is not a valid key.`);
  return found;
}

/** Management endpoints: `<SERVICE_NAME>-Key: sk_test_…|sk_live_…`; the key decides the environment. */
export const keyAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { config, limiter } = c.var.runtime;
  const header = `${config.SERVICE_NAME}-Key`;
  const given = c.req.header(header);
  const found = await limitingFailures(c, given !== undefined, async () => {
    const caller = await presented(c, given, header);
    if (caller) return caller;
    // A common first mistake: the Bearer scheme MID insights use, sent to a management route.
    if (/^Bearer\s/i.test(c.req.header("Authorization") ?? "")) {
      throw unauthorized(
        `Send the key in the ${header} header (${header}: sk_test_… or sk_live_…); Authorization: Bearer is only for MID insights.`,
      );
    }
    throw unauthorized(`Missing ${header} header.`);
  });
  c.set("keyHolder", found);
  const caller = await inSandbox(c, found, c.req.header(`${config.SERVICE_NAME}-Sandbox`));
  c.set("keyHolder", caller);
  // A sandbox spends its owner's rate budget: making sandboxes adds no requests to an account's share.
  await limiter.take(tenantOf(caller));
  c.set("caller", caller);
  await next();
};

/**
 * `<SERVICE_NAME>-Sandbox: <id>` with an account's own key acts in that sandbox of the account, in the key's
 * environment (test or live), as the sandbox's own key would; another account's sandbox is 404.
 */
async function inSandbox(c: Ctx, caller: Caller, sandboxId: string | undefined): Promise<Caller> {
  if (sandboxId === undefined) return caller;
  const header = `${c.var.runtime.config.SERVICE_NAME}-Sandbox`;
  if (caller.parentId) throw new ApiError("invalid_request", `${header}: the key is already a sandbox's; send the header with the account's own key, or leave it out.`);
  const sandbox = await findSandboxCaller(c.var.runtime.db, caller, sandboxId.trim());
  if (!sandbox) throw new ApiError("resource_not_found", `${header}: No sandbox with id ${sandboxId.trim()} in this account (GET /v1/sandboxes lists them).`);
  return sandbox;
}

/** MID insights: `Authorization: Bearer sk_live_…`, `<SERVICE_NAME>-Version`, premium tier. */
export const insightsAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { config, limiter } = c.var.runtime;
  const bearer = c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const found = await limitingFailures(c, bearer !== undefined, async () => {
    const caller = await presented(c, bearer, "Bearer key");
    if (!caller) throw unauthorized("Missing Authorization: Bearer <live secret key> header.");
    return caller;
  });
  c.set("keyHolder", found);
  if (!found.live) throw unauthorized("MID insights need the live secret key; a test key was given.");
  await limiter.take(tenantOf(found));
  const versionHeader = `${config.SERVICE_NAME}-Version`;
  const version = c.req.header(versionHeader);
  const supported = SUPPORTED_VERSIONS.join(", ");
  if (!version) throw new ApiError("invalid_request", `${versionHeader}: required; supported versions: ${supported}.`);
  if (!(SUPPORTED_VERSIONS as readonly string[]).includes(version)) {
    throw new ApiError("invalid_request", `${versionHeader}: unknown version ${version}; supported versions: ${supported}.`);
  }
  if (found.account.tier !== "premium") {
    throw new ApiError("tier_restricted", "MID insights are available on the premium tier only.");
  }
  c.set("caller", found);
  await next();
};

/** Operator surface: `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time. */
export function adminAuth(adminToken: string): MiddlewareHandler<AppEnv> {
  const expected = Buffer.from(sha256(adminToken));
  return async (c, next) => {
    const address = clientAddress(c);
    if (address) c.var.runtime.addressLimits.admin.take(address);
    const authorization = c.req.header("Authorization");
    await limitingFailures(c, authorization !== undefined, async () => {
      const given = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
      if (!given || !timingSafeEqual(Buffer.from(sha256(given)), expected)) {
        throw unauthorized("The admin API needs Authorization: Bearer <ADMIN_TOKEN>.");
      }
    });
    await next();
  };
}
