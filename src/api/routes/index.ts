// Mounts every /v1 resource.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context.ts";
import { router } from "../router.ts";
import { mountPrograms } from "./programs/index.ts";

export function mountV1(app: OpenAPIHono<AppEnv>) {
  const v1 = router();
  mountPrograms(v1);
  app.route("/v1", v1);
}
