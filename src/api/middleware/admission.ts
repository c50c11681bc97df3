// Test purchases and their clear, void and refund pass the front door's fair admission (src/api/admission.ts):
// they wait for the simulators and the qualifier, so how many are in flight is the pipeline's depth.
import type { MiddlewareHandler } from "hono";
import { tenantOf, type AppEnv } from "../context.ts";
import type { Admission } from "../admission.ts";

const TEST_PURCHASE_PATH = /^\/v1\/transactions\/(test|[^/]+\/(clear|void|refund))$/;

/** Each test purchase waits for its account's turn; a sandbox's count toward its owner. */
export function admitted(admission: Admission): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== "POST" || !TEST_PURCHASE_PATH.test(c.req.path)) return next();
    const finish = await admission.enter(tenantOf(c.var.caller));
    let ok = false;
    try {
      await next();
      ok = c.res.status < 400;
    } finally {
      finish(ok);
    }
  };
}
