// The card record as the API shows it: never the full number.
import { z } from "@hono/zod-openapi";

export const CardSchema = z
  .object({
    id: z.uuid(),
    programId: z.uuid(),
    firstNumbers: z.string().openapi({ description: "The first six digits.", example: "444400" }),
    lastNumbers: z.string().openapi({ description: "The last four digits.", example: "4008" }),
    scheme: z.enum(["visa", "mastercard", "amex"]).openapi({ description: "Detected from the number." }),
    expMonth: z.number().int().openapi({ example: 12 }),
    expYear: z.number().int().openapi({ example: 2028 }),
    countryCode: z.string().openapi({ example: "GBR" }),
    termsOfUse: z.boolean(),
    metadata: z.record(z.string(), z.unknown()).openapi({
      description: "Your own data, an object as in the transaction's copy of this record: {} when none was given (sending null clears it to {}).",
    }),
    live: z.boolean(),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Card");
