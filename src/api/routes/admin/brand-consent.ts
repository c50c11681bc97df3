// POST /admin/brands/{brandId}/consent: the operator answers a brand's consent request at once,
// in place of the simulated brand's delayed approval.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { rule } from "../../validation.ts";
import { commonErrors, jsonBody, jsonResponse, uuid } from "../../schemas.ts";
import { decideBrandConsent } from "../../../services/catalog/index.ts";
import { BrandSchema } from "../brands/schemas.ts";

const decide = createRoute({
  method: "post",
  path: "/brands/{brandId}/consent",
  tags: ["Admin"],
  summary: "Approve or decline a brand's consent",
  description:
    "Sets the consent of any account's brand, in either environment, and cancels a pending simulated answer. A decision that " +
    "changes the consent sends `brand.consent` to the brand's publisher.",
  security: [{ AdminToken: [] }],
  request: {
    params: z.object({ brandId: uuid("brandId") }),
    body: jsonBody(
      z
        .strictObject({
          decision: z.enum(["approved", "declined"], rule("must be approved or declined")),
        })
        .openapi("BrandConsentDecision", { example: { decision: "approved" } }),
    ),
  },
  responses: { 200: jsonResponse(BrandSchema, "The brand."), ...commonErrors },
});

export function mountBrandConsent(r: OpenAPIHono<AppEnv>) {
  r.openapi(decide, async (c) => {
    const { db, clock } = c.var.runtime;
    const { brandId } = c.req.valid("param");
    const brand = await decideBrandConsent(db, brandId, c.req.valid("json").decision, clock.now());
    if (!brand) throw notFound("brand", brandId);
    return c.json(brand, 200);
  });
}
