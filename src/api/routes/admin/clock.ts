// GET /admin/clock and POST /admin/clock/advance: read and move the service clock.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { invalid } from "../../errors.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse } from "../../schemas.ts";
import { LATEST_SERVICE_TIME, durationMs, type Clock } from "../../../platform/clock/index.ts";
import { ClockAdvanceSchema } from "../clock/schemas.ts";

const ClockSchema = z
  .object({
    now: z.string().openapi({ format: "date-time", example: "2026-11-20T12:00:00.000Z" }),
    mode: z.enum(["real", "scaled", "frozen"]),
    speed: z.number().openapi({ description: "Service seconds per real second; 0 when frozen." }),
  })
  .openapi("Clock");

const get = createRoute({
  method: "get",
  path: "/clock",
  tags: ["Admin"],
  summary: "The service clock",
  security: [{ AdminToken: [] }],
  responses: { 200: jsonResponse(ClockSchema, "The service time and mode."), ...commonErrors },
});

const advance = createRoute({
  method: "post",
  path: "/clock/advance",
  tags: ["Admin"],
  summary: "Move service time forward and run what fell due",
  description:
    "Moves every environment: the accounts' and each sandbox's time (a sandbox's clock runs over the service clock). " +
    "Runs the due work on the service clock (consents, marketplace answers, offboarding, return periods) and " +
    "wakes the webhook dispatcher; it answers once that work is done and the webhooks it made are queued, not " +
    "when they are delivered.",
  security: [{ AdminToken: [] }],
  request: {
    body: jsonBody(ClockAdvanceSchema),
  },
  responses: {
    200: jsonResponse(ClockSchema, "The service time after the move."),
    ...commonErrors,
    400: invalidWhen(["days, hours, minutes and seconds all 0 or missing (the move must be greater than 0)", "a move that would take service time past 9900-01-01"]),
  },
});

const describe = (clock: Clock) => ({ now: clock.now().toISOString(), mode: clock.mode, speed: clock.speed });

export function mountClock(r: OpenAPIHono<AppEnv>) {
  r.openapi(get, (c) => c.json(describe(c.var.runtime.clock), 200));
  r.openapi(advance, async (c) => {
    const ms = durationMs(c.req.valid("json"));
    if (ms <= 0) throw invalid("body", "give days, hours, minutes or seconds greater than 0");
    const { clock } = c.var.runtime;
    if (clock.now().getTime() + ms > LATEST_SERVICE_TIME.getTime()) {
      throw invalid("body", `service time would pass ${LATEST_SERVICE_TIME.toISOString()}, the latest it can reach; it is ${clock.now().toISOString()}`);
    }
    await c.var.runtime.clock.advance(ms);
    return c.json(describe(c.var.runtime.clock), 200);
  });
}
