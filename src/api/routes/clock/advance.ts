// POST /clock/advance — a sandbox's key moves its sandbox's time alone, and what fell due in it runs.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { commonErrors, errorResponse, invalidWhen, jsonBody, jsonResponse } from "../../schemas.ts";
import { LATEST_SERVICE_TIME, durationMs } from "../../../platform/clock/index.ts";
import { environmentNow } from "../../../platform/clock/environment.ts";
import { advanceSandboxClock } from "../../../services/accounts/index.ts";
import { units } from "./schemas.ts";
import { EnvironmentTimeSchema } from "./get.ts";

const Body = z
  .strictObject({
    ...units,
    to: z.iso
      .datetime({ offset: true, message: "must be an ISO 8601 instant, e.g. 2026-12-15T00:00:00Z" })
      .max(64, "must be at most 64 characters")
      .optional()
      .openapi({ description: "Move to this instant instead (after the sandbox's time: the clock never goes back)." }),
  })
  .openapi("SandboxClockAdvance", { example: { days: 15 } });

export const route = createRoute({
  method: "post",
  path: "/clock/advance",
  tags: ["Clock"],
  summary: "Move your sandbox's time forward",
  description:
    "With a sandbox's key: moves that sandbox's time alone (no other sandbox, account or the service clock), " +
    "runs everything that fell due in it (offer status, return periods, missing transaction requests, brand " +
    "consent, marketplace answers, offboarding, the networks' answers) and answers once that work is done " +
    "and its webhooks are queued. An account's own key answers 403: its environments keep the service clock.",
  request: { body: jsonBody(Body) },
  responses: {
    200: jsonResponse(EnvironmentTimeSchema, "The sandbox's time after the move."),
    ...commonErrors,
    403: errorResponse("forbidden: an account's own key; its environments keep the service clock (make a sandbox to move time)."),
    400: invalidWhen([
      "neither a unit greater than 0 nor `to`, or both",
      "`to` not after the sandbox's time",
      "a move past 9900-01-01",
    ]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { caller, runtime: services } = c.var;
  if (!caller.parentId) {
    throw new ApiError(
      "forbidden",
      "An account's own environments keep the service clock. Make a sandbox (POST /v1/sandboxes) and move its time with its key; the operator moves the service clock (POST /admin/clock/advance).",
    );
  }
  const { to, ...byUnits } = c.req.valid("json");
  const ms = durationMs(byUnits);
  if (to !== undefined && ms > 0) throw new ApiError("invalid_request", "body: give either `to` or days, hours, minutes and seconds, not both");
  if (to === undefined && ms <= 0) throw new ApiError("invalid_request", "body: give days, hours, minutes or seconds greater than 0, or `to`");
  const now = environmentNow(services.clock, caller.clock);
  const target = to !== undefined ? new Date(to) : new Date(now.getTime() + ms);
  if (target >= LATEST_SERVICE_TIME) {
    throw new ApiError("invalid_request", `${to !== undefined ? "to" : "body"}: the sandbox's time would pass ${LATEST_SERVICE_TIME.toISOString()}, the latest it can reach`);
  }
  const clock = await advanceSandboxClock(services.db, caller.account.id, to !== undefined ? { to: target } : { ms }, services.clock);
  // What fell due in the sandbox runs as on any advance: the due work, the workers' sends, the dispatcher's wake-up.
  await services.clock.advance(0);
  // Then the networks' due work in the sandbox, on its new time, and their answers applied (bounded wait).
  await services.simulators.advanceEnvironmentClock(caller.account.id, clock);
  return c.json(
    {
      now: environmentNow(services.clock, clock).toISOString(),
      frozen: clock.frozen,
      sandbox: caller.account.id,
      serviceNow: services.clock.now().toISOString(),
    },
    200,
  );
};
