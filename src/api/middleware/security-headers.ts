// Whether the browser's connection is https — directly, or through a TLS-terminating proxy when
// TRUST_PROXY is set (its X-Forwarded-Proto; without TRUST_PROXY the header is anyone's to send) —
// and HSTS on every answer given over https, so a browser never comes back over plain http.
import type { ApiRuntime } from "../context.ts";
import type { Context, MiddlewareHandler } from "hono";

/** One year: the usual HSTS lifetime. Subdomains are left alone (the operator's domain may serve others). */
const HSTS = "max-age=31536000";

export function requestIsHttps(c: Context): boolean {
  if (new URL(c.req.url).protocol === "https:") return true;
  const services = c.get("runtime") as ApiRuntime | undefined;
  if (!services?.config.TRUST_PROXY) return false;
  // The proxy nearest the client is first: `https, http` is a browser on https behind two proxies.
  return c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}

export const strictTransport: MiddlewareHandler = async (c, next) => {
  await next();
  if (requestIsHttps(c)) c.header("Strict-Transport-Security", HSTS);
};
