// Authentication: the management key header (`<SERVICE_NAME>-Key`), the MID-insights Bearer scheme
// with its version header and tier, and the operator's admin token.
import { timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { ApiError } from "../errors.ts";
import { findKey } from "../../store/accounts.ts";
import { sha256 } from "../../store/ids.ts";

export const SUPPORTED_VERSIONS = ["2024-11-25"] as const;

const unauthorized = (why: string) => new ApiError("unauthorized", why);

/** Management endpoints: `<SERVICE_NAME>-Key: sk_test_…|sk_live_…`; the key decides the environment. */
export const keyAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { config, db, limiter } = c.var.services;
  const header = `${config.SERVICE_NAME}-Key`;
  const key = c.req.header(header);
  if (!key) {
    // A common first mistake: the Bearer scheme MID insights use, sent to a management route.
    if (/^Bearer\s/i.test(c.req.header("Authorization") ?? "")) {
      throw unauthorized(
        `Send the key in the ${header} header (${header}: sk_test_… or sk_live_…); Authorization: Bearer is only for MID insights.`,
      );
    }
    throw unauthorized(`Missing ${header} header.`);
  }
  const found = await findKey(db, key.trim());
  if (!found) throw unauthorized(`The ${header} is not a valid key.`);
  limiter.take(found.keyId);
  c.set("caller", found);
  await next();
};

/** MID insights: `Authorization: Bearer sk_live_…`, `<SERVICE_NAME>-Version`, premium tier. */
export const insightsAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { config, db, limiter } = c.var.services;
  const authorization = c.req.header("Authorization");
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  if (!match) throw unauthorized("Missing Authorization: Bearer <live secret key> header.");
  const found = await findKey(db, match[1]!);
  if (!found) throw unauthorized("The Bearer key is not a valid key.");
  if (!found.live) throw unauthorized("MID insights need the live secret key; a test key was given.");
  limiter.take(found.keyId);
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
    const given = c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!given || !timingSafeEqual(Buffer.from(sha256(given)), expected)) {
      throw unauthorized("The admin API needs Authorization: Bearer <ADMIN_TOKEN>.");
    }
    await next();
  };
}
