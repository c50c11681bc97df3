// POST /brands/{brandId}/consent — in a sandbox the integrator plays the brand: its key approves or
// declines the consent of one of its brands, as the operator's POST /admin/brands/{brandId}/consent does.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { rule } from "../../validation.ts";
import { commonErrors, errorResponse, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { decideSandboxBrandConsent } from "../../../services/catalog/index.ts";
import { BrandSchema } from "./schemas.ts";

export const route = createRoute({
  method: "post",
  path: "/brands/{brandId}/consent",
  tags: ["Brands"],
  summary: "Approve or decline your sandbox brand's consent",
  description:
    "With a sandbox's key only (an account's own key: 403; the simulated brand answers a live consent request " +
    "after a delay of the environment's time, or the operator decides it). Cancels the pending simulated answer. A decision that " +
    "changes the consent sends `brand.consent`.",
  request: {
    params: z.object({ brandId: uuid("brandId") }),
    body: jsonBody(
      z
        .strictObject({ decision: z.enum(["approved", "declined"], rule("must be approved or declined")) })
        .openapi("SandboxBrandConsentDecision", { example: { decision: "approved" } }),
    ),
  },
  responses: {
    200: jsonResponse(BrandSchema, "The brand."),
    ...commonErrors,
    403: errorResponse("forbidden: an account's own key; only a sandbox's key decides its brands' consent."),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { caller, runtime: services } = c.var;
  if (!caller.parentId) throw new ApiError("forbidden", "Only a sandbox's key decides its brands' consent; in your account's own environments the brand answers (or the operator, POST /admin/brands/{brandId}/consent).");
  return c.json(await decideSandboxBrandConsent(ctxOf(services, caller), c.req.valid("param").brandId, c.req.valid("json").decision), 200);
};
