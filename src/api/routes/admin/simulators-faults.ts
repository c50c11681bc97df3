// GET, PATCH and DELETE /admin/simulators/{scheme}/faults: the faults injected into one simulated network.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, jsonBody, jsonResponse } from "../../schemas.ts";
import { faultsShape } from "../../../services/simulator-control/index.ts";
import { SCHEMES } from "../../../domain/scheme.ts";

const schemeParam = z
  .enum(SCHEMES, { message: "must be visa, mastercard or amex" })
  .openapi({ param: { name: "scheme", in: "path" }, example: "visa" });

const FaultsSchema = z.object(faultsShape).openapi("SimulatorFaults", {
  description:
    "What the simulated network does wrong. Rates are shares from 0 to 1 drawn per message (per purchase for " +
    "clearingBeforeAuthRate, per request for the onboarding and look-up rates) from a generator seeded with " +
    "SIMULATOR_SEED, so a rerun with the same inputs fails the same way.",
  example: {
    latencyMs: 250,
    dropRate: 0.05,
    duplicateRate: 0.02,
    clearingBeforeAuthRate: 0,
    onboardingFailureRate: 0.1,
    lookupErrorRate: 0,
    lookupErrorCode: "network-request-failed",
  },
});

const security = [{ AdminToken: [] }];
const params = z.object({ scheme: schemeParam });

const get = createRoute({
  method: "get",
  path: "/simulators/{scheme}/faults",
  tags: ["Admin"],
  summary: "The faults injected into a simulated network",
  security,
  request: { params },
  responses: { 200: jsonResponse(FaultsSchema, "The network's current faults (all 0 when none)."), ...commonErrors },
});

const update = createRoute({
  method: "patch",
  path: "/simulators/{scheme}/faults",
  tags: ["Admin"],
  summary: "Inject faults into a simulated network",
  description:
    "Sets the given faults and keeps the others. Takes effect at once in `npm start`; a separate simulator process " +
    "applies it as soon as it reads the setting off the bus (simulator.settings) and keeps it across restarts. Every message the network publishes (transactions, onboarding and look-up " +
    "replies) waits latencyMs, is then dropped (kept in the network's history, so a missing-transaction look-up " +
    "still finds it) or published, and maybe published a second time with the same message id.",
  security,
  request: { params, body: jsonBody(z.strictObject(faultsShape).partial().openapi("SimulatorFaultsChange", { example: { dropRate: 0.5 } })) },
  responses: { 200: jsonResponse(FaultsSchema, "The network's faults after the change."), ...commonErrors },
});

const clear = createRoute({
  method: "delete",
  path: "/simulators/{scheme}/faults",
  tags: ["Admin"],
  summary: "Remove every fault from a simulated network",
  security,
  request: { params },
  responses: { 204: { description: "The network behaves again." }, ...commonErrors },
});

export function mountSimulatorFaults(r: OpenAPIHono<AppEnv>) {
  r.openapi(get, async (c) => c.json(await c.var.runtime.simulators.faults(c.req.valid("param").scheme), 200));
  r.openapi(update, async (c) => {
    const { scheme } = c.req.valid("param");
    return c.json(await c.var.runtime.simulators.setFaults(scheme, c.req.valid("json")), 200);
  });
  r.openapi(clear, async (c) => {
    await c.var.runtime.simulators.clearFaults(c.req.valid("param").scheme);
    return c.body(null, 204);
  });
}
