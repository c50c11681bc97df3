// POST /programs/{programId}/mid-insights/offboard-requests — ask the network to offboard a MID.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { rule } from "../../validation.ts";
import { requestOffboarding } from "../../../services/mid-insights/index.ts";
import { MidInsightSchema, insightsErrors, insightsRoute } from "./schemas.ts";

const body = z
  .strictObject({
    midInsightId: z.uuid(rule("must be a UUID")).openapi({ description: "The insight of the MID to offboard." }),
  })
  .openapi("MidOffboardRequest", { example: { midInsightId: "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b" } });

const errorBody = insightsErrors[404].content;

export const route = createRoute({
  method: "post",
  path: "/programs/{programId}/mid-insights/offboard-requests",
  ...insightsRoute,
  summary: "Request offboarding of a MID",
  description:
    "Creates an offboard request. The MID is not removed from the network at once: it stays onboarded, with " +
    "offboardRequestedAt set, until the simulated network acts on the request two days later in service time; " +
    "then status is offboarded and offboardedAt the time it acted. Requesting again while a request is pending " +
    "changes nothing. Only an onboarded MID can be offboarded (409 otherwise).",
  request: { params: z.object({ programId: uuid("programId") }), body: jsonBody(body) },
  responses: {
    202: jsonResponse(MidInsightSchema, "The insight with its pending offboard request."),
    ...insightsErrors,
    409: { description: "conflict: the MID is sourced or already offboarded.", content: errorBody },
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { programId } = c.req.valid("param");
  const insight = await requestOffboarding(ctxOf(c.var.runtime, c.var.caller), programId, c.req.valid("json").midInsightId);
  return c.json(insight, 202);
};
