// The operator surface under /admin (Authorization: Bearer $ADMIN_TOKEN).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { router } from "../../router.ts";
import { mountAccounts } from "./accounts.ts";
import { mountClock } from "./clock.ts";

export function mountAdmin(app: OpenAPIHono<AppEnv>) {
  const admin = router();
  mountAccounts(admin);
  mountClock(admin);
  app.route("/admin", admin);
}
