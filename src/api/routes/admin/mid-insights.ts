// POST /admin/programs/{programId}/mid-insights/seed: generated MIDs and insights for demos and load tests.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { commonErrors, invalidWhen, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { rule } from "../../validation.ts";
import { MAX_SEED_COUNT, seedMidInsights } from "../../../services/mid-insights/index.ts";

const seed = createRoute({
  method: "post",
  path: "/programs/{programId}/mid-insights/seed",
  tags: ["Admin"],
  summary: "Generate MIDs and insights for a live program",
  description:
    "Creates `count` realistic MIDs with their insights — and the brands and locations they belong to — in " +
    "each network's formats (Amex SE numbers of 10 digits, Visa vmid of 6 to 8 digits with vsid, CAID and " +
    "acquirer BIN, Mastercard location id and acquiring MID). The same seed and service time give the same " +
    "records with the same ids, so seeding again creates only what is missing; `created` says how many were new.",
  security: [{ AdminToken: [] }],
  request: {
    params: z.object({ programId: uuid("programId") }),
    body: jsonBody(
      z
        .strictObject({
          count: z
            .number(rule("must be a whole number"))
            .int("must be a whole number")
            .min(1, "must be at least 1")
            .max(MAX_SEED_COUNT, `must be at most ${MAX_SEED_COUNT}`),
          seed: z
            .number({ message: "must be a whole number" })
            .int("must be a whole number")
            .min(0, "must be 0 or more")
            .max(2 ** 31 - 1, "must be at most 2147483647")
            .optional()
            .openapi({ description: "Defaults to SIMULATOR_SEED." }),
        })
        .openapi("MidInsightSeed", { example: { count: 1000, seed: 42 } }),
    ),
  },
  responses: {
    201: jsonResponse(
      z.object({ created: z.number().int().openapi({ description: "Insights created by this request." }) }),
      "The number of insights created.",
    ),
    ...commonErrors,
    400: invalidWhen(["programId: a test program (MID insights exist for live programs only)"]),
  },
});

export function mountMidInsightSeed(r: OpenAPIHono<AppEnv>) {
  r.openapi(seed, async (c) => {
    const { db, clock, config } = c.var.runtime;
    const body = c.req.valid("json");
    const created = await seedMidInsights(db, {
      programId: c.req.valid("param").programId,
      count: body.count,
      seed: body.seed ?? config.SIMULATOR_SEED,
      now: clock.now(),
    });
    return c.json({ created }, 201);
  });
}
