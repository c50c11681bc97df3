// POST /trigger/fixtures — the fixtures program `cardlink trigger` fires into, made on first use.
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, invalidWhen, jsonResponse } from "../../schemas.ts";
import { ensureFixtures } from "../../../services/simulator-control/index.ts";
import { FixturesSchema } from "./schemas.ts";

export const route = createRoute({
  method: "post",
  path: "/trigger/fixtures",
  tags: ["Trigger"],
  summary: "Make (or find) the fixtures program",
  description:
    "Test keys only. Makes what is missing of the fixtures program and answers its ids; a second call reuses them. " +
    "`cardlink listen` registers its hooks on this program unless told another.",
  responses: { 200: jsonResponse(FixturesSchema, "The fixtures."), ...commonErrors, 400: invalidWhen(["a live key: trigger works in the test environment only"]) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => c.json(await ensureFixtures(ctxOf(c.var.runtime, c.var.caller)), 200);
