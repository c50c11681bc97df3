// The location record as the API shows it, and the fields its create and update inputs share.
import { z } from "@hono/zod-openapi";
import { trimmedText } from "../../schemas.ts";
import { isTimeZone } from "../../../domain/countries.ts";
import { NETWORK_STATUSES } from "../../../domain/location-status.ts";
import { MID_FORMATS, type MidField } from "../../../domain/mid-formats.ts";

const text = (max: number) =>
  trimmedText(max);

export const address = text(200).openapi({ example: "1 High Street" });
export const city = text(100).openapi({ example: "London" });
export const postcode = text(20).openapi({ example: "SW1A 1AA" });

export const timezone = z
  .string()
  .max(64, "must be an IANA time zone, such as Europe/London")
  .refine(isTimeZone, "must be an IANA time zone, such as Europe/London")
  .openapi({
    description: "IANA time zone the location's local dates are in; defaults to the main time zone of countryCode.",
    example: "Europe/London",
  });

export const geolocation = z
  .strictObject({
    latitude: z.number().min(-90, "must be -90 to 90").max(90, "must be -90 to 90"),
    longitude: z.number().min(-180, "must be -180 to 180").max(180, "must be -180 to 180"),
  })
  .nullable()
  .optional()
  .openapi({ example: { latitude: 51.5014, longitude: -0.1419 } });

const mid = (field: MidField) => {
  const { pattern, rule, maxLength } = MID_FORMATS[field];
  // The pattern bounds the length; the document states that bound as maxLength too.
  return z.string().regex(pattern, rule).openapi({ maxLength });
};

const VisaMid = z
  .strictObject({
    vmid: mid("vmid").optional().openapi({ description: "Visa merchant id, 6 to 8 digits." }),
    vsid: mid("vsid").optional().openapi({ description: "Visa store id, 6 to 8 digits." }),
    visaAcquiringMid: mid("visaAcquiringMid").optional().openapi({ description: "Card acceptor id (CAID), 1 to 15 letters or digits." }),
    visaBin: mid("visaBin").optional().openapi({ description: "Acquirer BIN, 6 to 11 digits." }),
  })
  .refine((m) => Object.keys(m).length > 0, "must have at least one of vmid, vsid, visaAcquiringMid, visaBin")
  .openapi("VisaMid", { minProperties: 1 });

const MastercardMid = z
  .strictObject({
    mcLocationId: mid("mcLocationId").optional().openapi({ description: "Mastercard location id, 1 to 12 digits." }),
    mcAcquiringMid: mid("mcAcquiringMid").optional().openapi({ description: "Acquiring MID, 1 to 15 letters or digits." }),
  })
  .refine((m) => Object.keys(m).length > 0, "must have at least one of mcLocationId, mcAcquiringMid")
  .openapi("MastercardMid", { minProperties: 1 });

const AmexMid = z
  .strictObject({ seNumber: mid("seNumber").openapi({ description: "Service establishment number, exactly 10 digits." }) })
  .openapi("AmexMid");

const upTo = (n: number) => `must have at most ${n} entries`;

export const mids = z
  .strictObject({
    visa: z.array(VisaMid).max(20, upTo(20)).optional(),
    mastercard: z.array(MastercardMid).max(20, upTo(20)).optional(),
    amex: z.array(AmexMid).max(20, upTo(20)).optional(),
  })
  .optional()
  .openapi("LocationMids", {
    description:
      "MIDs the location already has on each network; known MIDs speed onboarding. The network fills in the fields a MID " +
      "leaves out (a Visa BIN alone gains the network's vmid and vsid), and the location keeps each MID so completed: " +
      "its purchases carry those ids.",
    example: { visa: [{ vmid: "12345678", vsid: "87654321" }], amex: [{ seNumber: "1234567890" }] },
  });

const networkState = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    status: z.enum(NETWORK_STATUSES).openapi({
      description:
        "Idle (not synced), Syncing (onboarding with the network), Active (onboarded) or Not found (the network " +
        "could not onboard it).",
    }),
    mids: z.array(item),
    case: z
      .object({
        id: z.uuid(),
        reason: z.string(),
        opened: z.string().openapi({ format: "date-time" }),
      })
      .optional()
      .openapi({ description: "Not found only: the case the network opened about the location, and why." }),
    updated: z.string().openapi({ format: "date-time" }),
  });

export const LocationSchema = z
  .object({
    id: z.uuid(),
    programId: z.uuid(),
    brandId: z.uuid(),
    address: z.string(),
    city: z.string(),
    postcode: z.string(),
    countryCode: z.string().openapi({ example: "GBR" }),
    timezone: z.string().openapi({ example: "Europe/London" }),
    geolocation: z.object({ latitude: z.number(), longitude: z.number() }).nullable(),
    metadata: z.record(z.string(), z.unknown()).openapi({
      description: "Your own data, an object as in the transaction's copy of this record: {} when none was given (sending null clears it to {}).",
    }),
    live: z.boolean(),
    status: z
      .object({ visa: networkState(VisaMid), mastercard: networkState(MastercardMid), amex: networkState(AmexMid) })
      .openapi({
        description:
          "Sync state per scheme. Test locations are Active on every scheme at once; each test network answers their " +
          "onboarding at once with its MIDs. Live locations start Idle (or Syncing when created with `status: syncing`, " +
          "which starts a sync of that location and answers 409 while another sync of the program runs) and become " +
          "Active (the network's MIDs) or Not found (with the case it opened) when the network answers, 1 to 2 weeks " +
          "of service time later — one week when MIDs were supplied at creation.",
      }),
    created: z.string().openapi({ format: "date-time" }),
    updated: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Location");
