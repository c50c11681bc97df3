// POST /programs/{programId}/cards — enrol a card in a program.
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../context.ts";
import { ctxOf } from "../../context.ts";
import { commonErrors, countryCode, invalidWhen, jsonBody, jsonResponse, metadataSchema, uuid } from "../../schemas.ts";
import { ownedBy } from "../../middleware/owned.ts";
import { rule } from "../../validation.ts";
import { TEST_NUMBER_RULE } from "../../../domain/card-number.ts";
import { enrolCard } from "../../../services/catalog/index.ts";
import { getProgram } from "../../../services/catalog/index.ts";
import { CardSchema } from "./schemas.ts";

const body = z
  .strictObject({
    number: z.string().max(19, "must be 12 to 19 digits").openapi({
      description:
        "The full card number, digits only. It must pass the Luhn check and be a Visa, Mastercard or Amex " +
        `number. Test keys accept only the test numbers (${TEST_NUMBER_RULE}); live keys refuse them. ` +
        "Only the first six and last four digits are kept.",
      example: "4444000000004008",
      pattern: "^[0-9]{12,19}$",
    }),
    expMonth: z.number().int("must be a whole number").min(1, "must be 1 to 12").max(12, "must be 1 to 12").openapi({ example: 12 }),
    expYear: z
      .number()
      .int("must be a whole number")
      .min(2000, "must be a four-digit year")
      .max(2100, "must be a four-digit year")
      .openapi({ description: "Four-digit year; with expMonth not in the past on the service clock.", example: 2028 }),
    countryCode,
    termsOfUse: z
      .literal(true, rule("must be true: the cardholder must accept the terms of use"))
      .openapi({ description: "The cardholder accepted the program's terms of use." }),
    metadata: metadataSchema,
  })
  .openapi("CardCreate", {
    example: { number: "4444000000004008", expMonth: 12, expYear: 2028, countryCode: "GBR", termsOfUse: true, metadata: { userId: "u-42" } },
  });

export const route = createRoute({
  method: "post",
  path: "/programs/{programId}/cards",
  tags: ["Cards"],
  summary: "Enrol a card",
  description: "Enrols a card in the program. The scheme is detected from the number; the number itself is never stored.",
  middleware: [ownedBy("programId", getProgram)] as const,
  request: { params: z.object({ programId: uuid("programId") }), body: jsonBody(body) },
  responses: {
    201: jsonResponse(CardSchema, "The enrolled card."),
    ...commonErrors,
    400: invalidWhen([
      "number: not Luhn-valid, not a Visa, Mastercard or Amex number, not a test number under a test key, or a test number under a live key",
      "expYear and expMonth: in the past on the service clock",
    ]),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) =>
  c.json(
    await enrolCard(ctxOf(c.var.runtime, c.var.caller), c.req.valid("param").programId, c.req.valid("json")),
    201,
  );
