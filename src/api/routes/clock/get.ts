// GET /clock — the time of the key's environment: a sandbox's own clock, or the service clock.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, jsonResponse } from "../../schemas.ts";

export const EnvironmentTimeSchema = z
  .object({
    now: z.string().openapi({ format: "date-time", description: "The environment's time: what its records and events carry.", example: "2026-12-01T09:00:00.000Z" }),
    frozen: z.boolean().openapi({ description: "Time passes only when advanced." }),
    sandbox: z.uuid().nullable().openapi({ description: "The sandbox whose clock this is; null for an account's own environments, which keep the service clock." }),
    serviceNow: z.string().openapi({ format: "date-time", description: "The service clock's time, which every environment's runs over." }),
  })
  .openapi("EnvironmentTime");

export const route = createRoute({
  method: "get",
  path: "/clock",
  tags: ["Clock"],
  summary: "The time of your key's environment",
  responses: { 200: jsonResponse(EnvironmentTimeSchema, "The environment's time."), ...commonErrors },
});

export const describeTime = (c: Parameters<RouteHandler<typeof route, AppEnv>>[0]) => {
  const { caller, runtime: services } = c.var;
  return {
    now: ctxOf(services, caller).clock.now().toISOString(),
    frozen: caller.parentId ? caller.clock.frozen : services.clock.mode === "frozen",
    sandbox: caller.parentId ? caller.account.id : null,
    serviceNow: services.clock.now().toISOString(),
  };
};

export const handler: RouteHandler<typeof route, AppEnv> = (c) => c.json(describeTime(c), 200);
