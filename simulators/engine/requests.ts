// What the simulators accept from the bus: each message's structure is its schema's (the generated
// validators); these are the rules beyond it, so a bad request is dead-lettered with a reason that names
// the field.
import type { z } from "zod";
import * as wire from "../../src/platform/bus/validators.generated.ts";
import { describeZodError } from "../../src/domain/field-errors.ts";
import { AUTH_EXPIRY_DAYS_RANGE } from "../../src/domain/purchase-follow-ups.ts";
import { atLeast, between, countryCode, currencyCode, date, digits, instant, localDateTime, matches, nonEmpty, positive, uuid, withFieldRules } from "../../src/domain/field-rules.ts";

export const onboardingRequests = withFieldRules(wire.onboardingRequestSchema, {
  requestId: nonEmpty,
  locationId: uuid,
  programId: uuid,
  brandName: nonEmpty,
  address: nonEmpty,
  city: nonEmpty,
  postcode: nonEmpty,
  countryCode,
  requestedAt: instant,
});

export const lookupRequests = withFieldRules(wire.lookupRequestSchema, {
  requestId: nonEmpty,
  cardId: nonEmpty,
  cardLastNumbers: matches(/^\d{4,5}$/, "must be the last 4 or 5 digits"),
  amount: atLeast(0, "must be 0 or more"),
  transactionDate: date,
  locationId: uuid,
  requestedAt: instant,
});

export const cardEnrolments = withFieldRules(wire.cardEnrolmentSchema, {
  cardId: nonEmpty,
  programId: uuid,
  firstSix: digits(6),
  lastFour: digits(4),
  at: instant,
});

export const simulatorCommands = withFieldRules(wire.simulatorCommandSchema, {
  commandId: nonEmpty,
  purchaseId: nonEmpty,
  card: { id: nonEmpty, firstSix: digits(6), lastFour: digits(4), billingCurrency: currencyCode },
  location: { id: uuid, name: nonEmpty, address: nonEmpty, city: nonEmpty, postcode: nonEmpty, countryCode },
  amount: positive,
  currency: currencyCode,
  datetime: localDateTime,
  authExpiryDays: between(AUTH_EXPIRY_DAYS_RANGE.min, AUTH_EXPIRY_DAYS_RANGE.max, `must be ${AUTH_EXPIRY_DAYS_RANGE.min} to ${AUTH_EXPIRY_DAYS_RANGE.max} days`),
  issuedAt: instant,
}).superRefine((c, ctx) => {
  if (c.action === "INCREMENT" && c.amount === null) ctx.addIssue({ code: "custom", path: ["amount"], message: "required for INCREMENT" });
  if (c.action !== "PURCHASE") return;
  if (!c.card) ctx.addIssue({ code: "custom", path: ["card"], message: "required for PURCHASE" });
  if (!c.location) ctx.addIssue({ code: "custom", path: ["location"], message: "required for PURCHASE" });
  if (c.amount === null) ctx.addIssue({ code: "custom", path: ["amount"], message: "required for PURCHASE" });
});

/** Parses a message value; the error names each field and its rule, like the API's 400s. */
export function parseMessage<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; reason: string } {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: describeZodError(parsed.error) };
}
