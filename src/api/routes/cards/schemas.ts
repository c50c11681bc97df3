// The card record as the API shows it: never the full number.
import { z } from "@hono/zod-openapi";
import { CARD_FAILURE_REASONS, FAILING_NUMBER_RULE, type CardFailureReason } from "../../../domain/card-number.ts";

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
    status: z.enum(["linked", "failed"]).openapi({
      description:
        "`linked`: the network enrolled the card (`card.linked`). `failed`: it refused (`card.failed`, with `failure`); the card is " +
        "only the record of that answer — no purchase, activation or missing transaction request can name it (409). The test " +
        `networks refuse the test numbers of documented ranges, one reason each (${FAILING_NUMBER_RULE}); a live card always links.`,
      example: "linked",
    }),
    failure: z
      .object({
        reason: z.enum(Object.keys(CARD_FAILURE_REASONS) as [CardFailureReason, ...CardFailureReason[]]).openapi({
          description: Object.entries(CARD_FAILURE_REASONS).map(([reason, message]) => `${reason}: ${message}`).join(" "),
        }),
        message: z.string(),
      })
      .nullable()
      .openapi({ description: "Why the network refused the card; null for a linked card." }),
    live: z.boolean(),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Card");
