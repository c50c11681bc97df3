// POST /sandboxes — an isolated environment of the account's own: its own keys, records and clock.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, errorResponse, invalidWhen, jsonBody, jsonResponse, trimmedText } from "../../schemas.ts";
import { rule } from "../../validation.ts";
import { createSandbox, DEFAULT_SANDBOX_SECONDS, MAX_SANDBOX_SECONDS } from "../../../services/accounts/index.ts";
import { LATEST_SERVICE_TIME } from "../../../platform/clock/index.ts";
import { forbiddenToSandboxes, owner, SandboxSchema } from "./schemas.ts";
import { ApiError } from "../../errors.ts";

const Body = z
  .strictObject({
    name: trimmedText(100).openapi({ description: "Unique among the account's sandboxes, 1 to 100 characters.", example: "ci-1234" }),
    clock: z
      .strictObject({
        at: z.iso
          .datetime({ offset: true, message: "must be an ISO 8601 instant, e.g. 2026-12-01T09:00:00Z" })
          .max(64, "must be at most 64 characters")
          .optional()
          .openapi({ description: "The instant the sandbox's time starts at (default: the service time)." }),
        frozen: z.boolean(rule("must be true or false")).optional().openapi({ description: "Frozen at that instant: time moves only when advanced." }),
      })
      .optional(),
    expiresIn: z
      .number(rule("must be a number of seconds"))
      .int("must be a whole number of seconds")
      .min(60, "must be at least 60 seconds")
      .max(MAX_SANDBOX_SECONDS, `must be at most ${MAX_SANDBOX_SECONDS} seconds (30 days)`)
      .optional()
      .openapi({ description: `Seconds of service time until the workers delete it; default ${DEFAULT_SANDBOX_SECONDS} (a day), at most 30 days.` }),
  })
  .openapi("SandboxCreate", { example: { name: "ci-1234", clock: { frozen: true, at: "2026-12-01T09:00:00Z" }, expiresIn: 3600 } });

const Created = SandboxSchema.extend({
  keys: z
    .object({ test: z.string().openapi({ example: "sk_test_…" }), live: z.string().openapi({ example: "sk_live_…" }) })
    .openapi({ description: "The sandbox's own keys, shown only in this answer." }),
}).openapi("SandboxWithKeys");

export const route = createRoute({
  method: "post",
  path: "/sandboxes",
  tags: ["Sandboxes"],
  summary: "Create a sandbox",
  description:
    "An isolated environment of your account with its own test and live keys, records and clock " +
    "([docs/sandboxes.md](https://github.com/cardlink/cardlink/blob/main/docs/sandboxes.md)). Its keys see only its " +
    "records; every /v1 route works with them. Made with the account's own key (a sandbox's key: 403). " +
    "409 when the account has as many as it may (SANDBOXES_PER_ACCOUNT, 10 by default) or the name is taken.",
  request: { body: jsonBody(Body) },
  responses: {
    201: jsonResponse(Created, "The sandbox, with its keys (shown once)."),
    ...commonErrors,
    ...forbiddenToSandboxes,
    409: errorResponse("conflict: the account has as many sandboxes as it may (SANDBOXES_PER_ACCOUNT), or one with that name; the message says which and how to delete one."),
    400: invalidWhen(["name missing or over 100 characters", "clock.at not an ISO 8601 instant", "expiresIn under 60 or over 2,592,000 seconds"]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { db, clock, config } = c.var.runtime;
  const body = c.req.valid("json");
  const at = body.clock?.at ? new Date(body.clock.at) : undefined;
  if (at && at >= LATEST_SERVICE_TIME) throw new ApiError("invalid_request", `clock.at: must be before ${LATEST_SERVICE_TIME.toISOString()}`);
  const { sandbox, clock: sandboxClock } = await createSandbox(
    db,
    owner(c.var.caller),
    {
      name: body.name,
      clock: { ...(at ? { at } : {}), ...(body.clock?.frozen !== undefined ? { frozen: body.clock.frozen } : {}) },
      ...(body.expiresIn !== undefined ? { expiresInSeconds: body.expiresIn } : {}),
    },
    clock,
    config.SANDBOXES_PER_ACCOUNT,
  );
  // The networks keep its time from the start (a failed announcement is repeated by its first advance).
  await c.var.runtime.simulators.announceEnvironmentClock(sandbox.id, sandboxClock).catch((err: unknown) => c.var.runtime.log.warn({ err }, "announcing a sandbox's clock failed"));
  return c.json(sandbox, 201);
};
