// What the simulators accept from the bus, beyond the Avro shape: each field's rule, so a bad request
// is dead-lettered with a reason that names the field.
import { z } from "zod";
import { countryByAlpha3 } from "../../src/domain/countries.ts";
import { isLocalDateTime } from "../../src/domain/local-dates.ts";
import { describeZodError } from "../../src/domain/field-errors.ts";
import { SCHEMES } from "../../src/domain/scheme.ts";

const scheme = z.enum(SCHEMES);
const instant = z.iso.datetime({ offset: true, message: "must be an ISO 8601 instant" });
const countryCode = z.string().refine((c) => countryByAlpha3(c) !== undefined, "must be an ISO 3166-1 alpha-3 country code");
const nonEmpty = z.string().trim().min(1, "must not be empty");
const day = z.iso.date({ message: "must be a date, YYYY-MM-DD" });

const mids = z.array(
  z.object({
    vmid: z.string().nullable(),
    vsid: z.string().nullable(),
    visaAcquiringMid: z.string().nullable(),
    visaBin: z.string().nullable(),
    mcLocationId: z.string().nullable(),
    mcAcquiringMid: z.string().nullable(),
    seNumber: z.string().nullable(),
    merchantName: z.string().nullable(),
  }),
);

export const onboardingRequestSchema = z.object({
  requestId: nonEmpty,
  scheme,
  locationId: z.uuid({ message: "must be a UUID" }),
  programId: z.uuid({ message: "must be a UUID" }),
  brandName: nonEmpty,
  address: nonEmpty,
  city: nonEmpty,
  postcode: nonEmpty,
  countryCode,
  mids,
  requestedAt: instant,
  live: z.boolean().default(true),
});

export const lookupRequestSchema = z.object({
  requestId: nonEmpty,
  scheme,
  cardId: nonEmpty,
  cardLastNumbers: z.string().regex(/^\d{4,5}$/, "must be the last 4 or 5 digits"),
  amount: z.number().min(0, "must be 0 or more"),
  transactionDate: day,
  locationId: z.uuid({ message: "must be a UUID" }).nullable(),
  mids,
  requestedAt: instant,
  live: z.boolean().default(true),
});

export const enrolmentSchema = z.object({
  cardId: nonEmpty,
  scheme,
  action: z.enum(["ENROL", "UNENROL"]),
  programId: z.uuid({ message: "must be a UUID" }),
  firstSix: z.string().regex(/^\d{6}$/, "must be 6 digits"),
  lastFour: z.string().regex(/^\d{4}$/, "must be 4 digits"),
  live: z.boolean(),
  at: instant,
});

const money = z.number().positive("must be greater than 0");

export const commandSchema = z
  .object({
    commandId: nonEmpty,
    scheme,
    action: z.enum(["PURCHASE", "CLEAR", "REFUND", "VOID"]),
    purchaseId: nonEmpty,
    card: z.object({ id: nonEmpty, firstSix: z.string().regex(/^\d{6}$/, "must be 6 digits"), lastFour: z.string().regex(/^\d{4}$/, "must be 4 digits") }).nullable(),
    location: z
      .object({
        id: z.uuid({ message: "must be a UUID" }),
        name: nonEmpty,
        address: nonEmpty,
        city: nonEmpty,
        postcode: nonEmpty,
        countryCode,
        timezone: z.string().nullable(),
        mids,
      })
      .nullable(),
    amount: money.nullable(),
    currency: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code").nullable(),
    datetime: z.string().refine(isLocalDateTime, "must be YYYY-MM-DDThh:mm:ss").nullable(),
    cardPresent: z.boolean().nullable(),
    wallet: z.string().nullable(),
    targetingTag: z.string().nullable(),
    issuedAt: instant,
  })
  .superRefine((c, ctx) => {
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
