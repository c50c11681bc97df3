// The brand record as the API shows it, and the fields shared by its inputs.
import { z } from "@hono/zod-openapi";

export const BrandSchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ example: "Coffee House" }),
    logoUrl: z.string().nullable().openapi({ example: "https://example.com/logo.png" }),
    consent: z.enum(["requested", "approved", "declined"]).openapi({
      description:
        "The brand's consent to have its locations added. Test: `approved` at once. Live: `requested`, then " +
        "`approved` by the (simulated) brand 1 to 3 days later on the service clock, or decided at once by the " +
        "operator with `POST /admin/brands/{brandId}/consent`. Locations need `approved`. Each answer that changes it is a " +
        "`brand.consent` event (a test brand's comes at once).",
    }),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    live: z.boolean(),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Brand");
