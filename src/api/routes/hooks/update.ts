// PATCH /hooks/{hookId} — re-enable a hook the dispatcher disabled after a long failure streak, or disable one.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { rule } from "../../validation.ts";
import { getHook, setHookEnabled } from "../../../services/webhooks/index.ts";
import { HookSchema } from "./schemas.ts";

const body = z
  .strictObject({
    enabled: z.boolean(rule("must be true or false")).openapi({
      description:
        "`true` re-enables the hook: its failure streak and pause are cleared and the deliveries queued " +
        "while it was disabled go out at once. `false` disables it: events keep being queued for it, none is sent.",
    }),
  })
  .openapi("HookUpdate", { example: { enabled: true } });

export const route = createRoute({
  method: "patch",
  path: "/hooks/{hookId}",
  tags: ["Hooks"],
  summary: "Re-enable or disable a hook",
  description:
    "A hook whose every delivery attempt has failed for 5 days of service time is disabled by the dispatcher, " +
    "with `status: disabled`, `disabledAt` and `disabledReason` on the hook; this re-enables it.",
  middleware: [ownedBy("hookId", getHook)] as const,
  request: { params: z.object({ hookId: uuid("hookId") }), body: jsonBody(body) },
  responses: { 200: jsonResponse(HookSchema, "The hook, without its secret."), ...commonErrors },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(
    await setHookEnabled(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").hookId, c.req.valid("json").enabled),
    200,
  );
