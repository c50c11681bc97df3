// A router whose validation failures become the standard 400 body, and whose routes answer an empty JSON
// body as their declaration says: `{}` where the body is optional (optionalJsonBody), 400 where it is required.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { BODY_REQUIRED, JSON_TYPE, validationError } from "./validation.ts";

/**
 * Content-Type: application/json with nothing in the body, as clients send who set the header on every call
 * (k6 scripts, fetch wrappers). A route whose body is optional takes it as `{}`, as Stripe's API does; a
 * route that requires one answers the 400 naming the body, not a JSON parse error.
 */
const emptyJsonBody =
  (required: boolean): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (JSON_TYPE.test(c.req.header("content-type") ?? "") && (await c.req.text()).trim() === "") {
      if (required) throw new ApiError("invalid_request", BODY_REQUIRED);
      // The body validator reads the request after this: it reads `{}` (the cache held the empty text).
      c.req.raw = new Request(c.req.raw.url, { method: c.req.method, headers: c.req.raw.headers, body: "{}", signal: c.req.raw.signal });
      c.req.bodyCache = {};
    }
    await next();
  };

export const router = () => {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      // Only routes whose body is required validate "json" without a JSON content type: the body is missing.
      if (result.target === "json" && !/json/i.test(c.req.header("content-type") ?? "")) {
        throw new ApiError("invalid_request", BODY_REQUIRED);
      }
      if (!result.success) {
        const target = result.target === "json" ? "body" : result.target;
        throw validationError(result.error, target);
      }
    },
  });
  // Every route with a JSON body gets the empty-body rule of its declaration, after its own middleware and
  // before the validators, where a malformed body is answered. The wrapper passes the route on as it is
  // declared; only its handler's types depend on the generic signature, which the caller keeps.
  type Register = (route: RouteConfig, handler: unknown, hook?: unknown) => unknown;
  const register = app.openapi as unknown as Register;
  const withBodyRule: Register = (route, handler, hook) => {
    const body = route.request?.body;
    if (!body?.content["application/json"]) return register(route, handler, hook);
    const own = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
    return register({ ...route, middleware: [...own, emptyJsonBody(body.required === true)] }, handler, hook);
  };
  app.openapi = withBodyRule as unknown as typeof app.openapi;
  return app;
};
