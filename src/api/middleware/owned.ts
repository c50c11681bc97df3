// Checks that the record a path parameter names is the caller's before the body is validated, so a
// request about another account's (or the other environment's) record is a 404 whatever its body.
import type { MiddlewareHandler } from "hono";
import { ctxOf, type AppEnv, type Ctx } from "../context.ts";
import { UUID_PATTERN } from "../../platform/ids.ts";

/** Runs `load` (which throws 404 for a record the caller does not have) on the `param` path parameter. */
export const ownedBy =
  (param: string, load: (ctx: Ctx, id: string) => Promise<unknown>): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const id = c.req.param(param);
    // A malformed id is left to the parameter schema, which names it in a 400.
    if (id && UUID_PATTERN.test(id)) await load(ctxOf(c.var.runtime, c.var.caller), id);
    await next();
  };
