// GET /admin/simulators/traffic, POST /admin/simulators/traffic/start and /stop: generated network traffic.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse } from "../../schemas.ts";
import { trafficOptionsSchema } from "../../../services/simulator-control/index.ts";
import { SCHEMES } from "../../../domain/scheme.ts";

const counts = z
  .object({
    purchases: z.number().int().openapi({ description: "Purchases generated so far." }),
    planned: z.number().int().nullable().openapi({ description: "Purchases the run makes in all; null when it runs until stopped." }),
    sent: z
      .object({ auth: z.number().int(), clearing: z.number().int(), refund: z.number().int(), void: z.number().int() })
      .openapi({ description: "Messages published, by kind, duplicates included." }),
    dropped: z.number().int().openapi({ description: "Messages a drop fault kept from the bus." }),
    duplicated: z.number().int().openapi({ description: "Messages a duplicate fault published twice." }),
  })
  .openapi("TrafficCounts");

const TrafficStatusSchema = z
  .object({
    run: z
      .object({
        id: z.string(),
        options: z.record(z.string(), z.unknown()).openapi({ description: "The options the run was started with, defaults filled in." }),
        state: z.enum(["running", "stopped", "completed"]).openapi({
          description:
            "running: the networks generate purchases; stopped: by /stop or by a later run; completed: a run with " +
            "`durationSeconds` whose networks have all reported their planned purchases.",
        }),
        started: z.string().openapi({ format: "date-time" }),
        stopped: z.string().nullable().openapi({ format: "date-time", description: "When it was stopped or completed (service time); null while running." }),
      })
      .nullable()
      .openapi({ description: "The latest run; null before the first." }),
    counts: z
      .object(Object.fromEntries(SCHEMES.map((s) => [s, counts.optional()])))
      .openapi({ description: "Per scheme of the run: what its network last reported over the bus (simulator.traffic.progress); zeros until it has." }),
    achievedRate: z.number().nullable().openapi({
      description:
        "Purchases per second the run achieved so far, all schemes together: what the networks reported over the service time " +
        "from the run's start to their latest report (about once a second, and at the end). Null before the first report.",
    }),
  })
  .openapi("TrafficStatus");

const security = [{ AdminToken: [] }];

const status = createRoute({
  method: "get",
  path: "/simulators/traffic",
  tags: ["Admin"],
  summary: "What generated traffic is running and what it has sent",
  security,
  responses: { 200: jsonResponse(TrafficStatusSchema, "The latest run and its counts."), ...commonErrors },
});

const start = createRoute({
  method: "post",
  path: "/simulators/traffic/start",
  tags: ["Admin"],
  summary: "Start generated traffic",
  description:
    "The simulated networks generate purchases at `rate` per second (real time) over the service's enrolled cards " +
    "and locations of their scheme (optionally one program's), plus noise: cards never enrolled, merchants the " +
    "service does not know, and locations the network has not onboarded. Each purchase is authorised now and " +
    "cleared 48–72 hours later on the service clock (Mastercard in its 12:00 UTC batch); some are voided or " +
    "refunded. The same seed over the same population gives the same stream. A run already going is stopped first.",
  security,
  request: {
    body: jsonBody(trafficOptionsSchema.openapi("TrafficOptions", { example: { rate: 20, seed: 42, durationSeconds: 60, schemes: ["visa", "mastercard"] } })),
  },
  responses: {
    201: jsonResponse(TrafficStatusSchema, "The new run."),
    ...commonErrors,
    400: invalidWhen(["targetingTags: shares adding up to more than 1", "unknownMerchants + notOnboardedLocations over 1", "voids + refunds + partialClearings + multipleClearings over 1"]),
  },
});

const stop = createRoute({
  method: "post",
  path: "/simulators/traffic/stop",
  tags: ["Admin"],
  summary: "Stop generated traffic",
  description: "Purchases already made still clear, void and refund on the service clock.",
  security,
  responses: { 200: jsonResponse(TrafficStatusSchema, "The stopped run and what it sent."), ...commonErrors },
});

export function mountSimulatorTraffic(r: OpenAPIHono<AppEnv>) {
  r.openapi(status, async (c) => c.json(await c.var.runtime.simulators.trafficStatus(), 200));
  r.openapi(start, async (c) => c.json(await c.var.runtime.simulators.startTraffic(c.req.valid("json")), 201));
  r.openapi(stop, async (c) => c.json(await c.var.runtime.simulators.stopTraffic(), 200));
}
