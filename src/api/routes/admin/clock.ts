// GET /admin/clock and POST /admin/clock/advance: read and move the service clock.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { invalid } from "../../errors.ts";
import { commonErrors, jsonBody, jsonResponse } from "../../schemas.ts";
import { durationMs, type Clock } from "../../../clock/index.ts";

const ClockSchema = z
  .object({
    now: z.string().openapi({ format: "date-time", example: "2026-11-20T12:00:00.000Z" }),
    mode: z.enum(["real", "scaled", "frozen"]),
    speed: z.number().openapi({ description: "Service seconds per real second; 0 when frozen." }),
  })
  .openapi("Clock");

const unit = z.number().finite().min(0, "must be 0 or more").optional();

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
    "Runs the due work on the service clock (consents, marketplace answers, offboarding, return periods) and " +
    "wakes the webhook dispatcher; it answers once that work is done and the webhooks it made are queued, not " +
    "when they are delivered.",
  security: [{ AdminToken: [] }],
  request: {
    body: jsonBody(
      z
        .strictObject({ days: unit, hours: unit, minutes: unit, seconds: unit })
        .openapi("ClockAdvance", { example: { days: 4 } }),
    ),
  },
  responses: { 200: jsonResponse(ClockSchema, "The service time after the move."), ...commonErrors },
});

const describe = (clock: Clock) => ({ now: clock.now().toISOString(), mode: clock.mode, speed: clock.speed });

export function mountClock(r: OpenAPIHono<AppEnv>) {
  r.openapi(get, (c) => c.json(describe(c.var.services.clock), 200));
  r.openapi(advance, async (c) => {
    const ms = durationMs(c.req.valid("json"));
    if (ms <= 0) throw invalid("body", "give days, hours, minutes or seconds greater than 0");
    await c.var.services.clock.advance(ms);
    return c.json(describe(c.var.services.clock), 200);
  });
}
