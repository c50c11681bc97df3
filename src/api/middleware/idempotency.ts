// `Idempotency-Key` on the POSTs of /v1: the same key with the same request replays the first answer
// (with `Idempotent-Replayed: true`); the same key with another request is 422 naming the key; a request
// that failed (5xx, 429) frees its key for the retry. Keys are per account and environment. The request
// is remembered by an HMAC-SHA256 fingerprint under a server secret (IDEMPOTENCY_SECRET, else one kept in
// the database): a plain hash of a body with a card number in it could be reversed by trying candidates.
import type { ApiRuntime } from "../context.ts";
import { createHmac } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { ApiError, invalid } from "../errors.ts";
import { claimKey, recordAnswer, releaseKey } from "../../platform/idempotency.ts";
import { within } from "../../platform/health/dependency.ts";
import { serverSecret } from "../../services/accounts/index.ts";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** How long an answer waits for its key's record (real ms). */
const RECORD_WITHIN_MS = 1_000;

/** Each app's fingerprint key, read from the database once (and again after a failed read). */
const fingerprintKeys = new WeakMap<ApiRuntime, Promise<string>>();
function fingerprintKey(services: ApiRuntime): Promise<string> {
  if (services.config.IDEMPOTENCY_SECRET) return Promise.resolve(services.config.IDEMPOTENCY_SECRET);
  let key = fingerprintKeys.get(services);
  if (!key) {
    key = serverSecret(services.db, "idempotency-fingerprint");
    fingerprintKeys.set(services, key);
    key.catch(() => fingerprintKeys.delete(services));
  }
  return key;
}

export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.method === "POST" ? c.req.header(IDEMPOTENCY_HEADER) : undefined;
  if (key === undefined) return next();
  if (!KEY_PATTERN.test(key)) throw invalid(IDEMPOTENCY_HEADER, "must be 1 to 255 visible ASCII characters (a UUID is a good key)");
  const { runtime: services, caller } = c.var;
  const scope = { accountId: caller.account.id, live: caller.live };
  const fingerprint = createHmac("sha256", await fingerprintKey(services))
    .update(`${c.req.method} ${c.req.path}\u0000${await c.req.text()}`)
    .digest("hex");

  const claim = await claimKey(services.db, scope, key, fingerprint, services.clock.now());
  if (claim.kind === "mismatch") {
    throw new ApiError("idempotency_key_reused", `${IDEMPOTENCY_HEADER} ${key}: already used with a different request in the last 24 hours; use a new key for a new request.`);
  }
  if (claim.kind === "running") {
    throw new ApiError("conflict", `${IDEMPOTENCY_HEADER} ${key}: the first request with this key has not answered yet; retry when it has.`, { "Retry-After": "1" });
  }
  if (claim.kind === "replay") {
    const { status, body, contentType } = claim.answer;
    return c.body(body, status as 200, { ...(contentType ? { "content-type": contentType } : {}), "Idempotent-Replayed": "true" });
  }

  await next();
  const status = c.res.status;
  try {
    const recording =
      status >= 500 || status === 429
        ? releaseKey(services.db, scope, key)
        : recordAnswer(services.db, scope, key, { status, body: await c.res.clone().text(), contentType: c.res.headers.get("content-type") });
    // The answer does not wait on PostgreSQL going away after it was made: a write left queued for a
    // connection finishes (or fails) when the database is back.
    await within(recording, RECORD_WITHIN_MS, "postgres");
  } catch (err) {
    // The answer stands (what it made is made); a key that could not be recorded answers 409 to a retry.
    services.health.report(err);
    services.log.warn({ err, key }, "idempotency key not recorded");
  }
};
