// The MID insight and export records as the API shows them, and what every MID-insights route shares.
import { z } from "@hono/zod-openapi";
import { MID_INSIGHT_STATUSES, ORIGINS, SCHEMES } from "../../../domain/mid-insights.ts";
import { EXPORT_MAIL_STATUSES } from "../../../services/mid-insights/index.ts";
import { ErrorBodySchema, commonErrors } from "../../schemas.ts";

const ts = (description: string) =>
  z.string().nullable().openapi({ format: "date-time", description, example: "2025-11-02T09:14:31.000Z" });
const optionalId = (description: string) => z.uuid().nullable().openapi({ description });
const optionalText = (description: string, example: string) => z.string().nullable().openapi({ description, example });

export const MidInsightSchema = z
  .object({
    id: z.uuid().openapi({ description: "Identifier of the insight record." }),
    brandId: z.uuid().openapi({ description: "Brand the insight belongs to." }),
    locationId: z.uuid().openapi({ description: "Location the MID is associated with." }),
    midId: z.uuid().openapi({ description: "MID record the insight is linked to." }),
    programId: z.uuid().openapi({ description: "Program it belongs to." }),
    scheme: z.enum(SCHEMES).openapi({ description: "Card network." }),
    status: z.enum(MID_INSIGHT_STATUSES).openapi({
      description:
        "sourced: found, not yet onboarded at the network; onboarded; offboarded. An offboard request leaves " +
        "the MID onboarded until the network acts on it (two days of service time).",
    }),
    created: z.string().openapi({ format: "date-time", description: "When the record was created." }),
    cardNetworkMerchantName: optionalText("Merchant name as registered with the network.", "COSTA COFFEE LEEDS"),
    mcAcquiringMid: optionalText("Mastercard acquiring MID (mastercard).", "402911000120034"),
    mcLocationId: optionalText("Mastercard location id (mastercard).", "184736291"),
    seNumber: optionalText("Service establishment number, 10 digits (amex).", "1234567890"),
    visaAcquiringMid: optionalText("Visa acquiring merchant id, CAID (visa).", "000923847561023"),
    visaBin: optionalText("Visa acquirer BIN (visa).", "426684"),
    vmid: optionalText("Visa merchant id, 6 to 8 digits (visa).", "12345678"),
    vsid: optionalText("Visa store id (visa).", "48213377"),
    midRequestId: optionalId("MID request that originated the MID."),
    origin: z.enum(ORIGINS).openapi({ description: "How the MID was sourced." }),
    sourcedAt: ts("When the MID was first sourced."),
    onboardedAt: ts("When the MID was onboarded at the network."),
    offboardedAt: ts("When the MID was offboarded from the network."),
    lastSeenTransactionDate: ts("Time of the latest transaction seen on the MID for the program."),
    lastSeenTransactionId: optionalId("Id of that latest transaction."),
    firstTransactionClearingId: optionalId("Id of the first clearing transaction on the MID."),
    firstTransactionAuthId: optionalId("Id of the first authorisation transaction on the MID for the program."),
    offboardRequestedAt: ts("When offboarding was requested; null when no request is pending or done."),
    eventTs: z.string().openapi({
      format: "date-time",
      description: "Time of the latest event on the insight: sourcing, onboarding, offboard request, offboarding or a transaction seen.",
    }),
    updated: z.string().openapi({ format: "date-time", description: "When the record last changed." }),
  })
  .openapi("MidInsight");

const ExportMailStateSchema = z
  .object({
    recipient: z.string().openapi({ example: "finance@example.com" }),
    status: z.enum(EXPORT_MAIL_STATUSES).openapi({
      description:
        "`pending`: not tried yet (the workers send within seconds). `retrying`: a try failed, `lastError` says why, and it is tried again " +
        "after 2 s, 10 s, 1 min, 5 min, 15 min, 1 h, … (about five days in all). `sent`: the SMTP server took it, or it was kept for the " +
        "dashboard's mail page. `failed`: refused for good (a 5xx answer to the recipient or the message) or every retry spent.",
      example: "sent",
    }),
    attempts: z.number().int().openapi({ description: "Tries so far.", example: 1 }),
    lastError: z.string().nullable().openapi({
      description: "Why the last try failed: the SMTP server's answer, or why it could not be reached. Null once sent.",
      example: "connect ECONNREFUSED 127.0.0.1:1025",
    }),
    sent: z.string().nullable().openapi({ format: "date-time", description: "When it was sent, in the environment's time.", example: "2026-01-05T12:00:01.000Z" }),
  })
  .openapi("MidInsightExportMail");

export const MidInsightExportSchema = z
  .object({
    id: z.uuid(),
    programId: z.uuid(),
    format: z.enum(["csv", "json"]),
    recipients: z.array(z.string()).openapi({
      description: "Where the export is addressed: the given addresses, or the account's. Each gets a message of its own (`mail`).",
      example: ["finance@example.com"],
    }),
    filters: z.record(z.string(), z.string()).openapi({
      description: "The filters the export was made with, as given.",
      example: { status: "onboarded" },
    }),
    sort: z.string().openapi({ example: "created" }),
    order: z.enum(["asc", "desc"]),
    count: z.number().int().openapi({ description: "Number of insights in the file." }),
    size: z.number().int().openapi({ description: "Size of the file in bytes." }),
    created: z.string().openapi({ format: "date-time" }),
    fileUrl: z.string().openapi({
      description: "Where to download the file (GET, with the same Authorization and version headers).",
      example: "/v1/programs/3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b/mid-insights/exports/8d1e0c2a-3b4f-4e5d-9a6b-7c8d9e0f1a2b/file",
    }),
    mail: z.array(ExportMailStateSchema).openapi({
      description:
        "The export's e-mail, one message per recipient with the file attached, sent by the service's workers: through the operator's " +
        "SMTP server (SMTP_URL), or kept for the dashboard's mail page when none is set. A send that fails is tried again with backoff; " +
        "the file stays downloadable from fileUrl whatever happens to the mail.",
    }),
  })
  .openapi("MidInsightExport");

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorBodySchema } },
});

/** Every MID-insights route: the live key as a Bearer token, the version header, the premium tier. */
export const insightsRoute = {
  tags: ["MID insights"],
  security: [{ LiveBearer: [] as string[] }],
  parameters: [{ $ref: "#/components/parameters/Version" }],
};

export const insightsErrors = {
  ...commonErrors,
  400: errorResponse(
    "Invalid request: the message names the parameter and its rule; also a missing or unknown version header, naming the supported versions.",
  ),
  401: errorResponse("Missing Authorization: Bearer header, an unknown key, a test key, or the management key header instead."),
  403: errorResponse("tier_restricted: the account is not on the premium tier."),
  404: errorResponse("resource_not_found: no such program (or record in it) for this account."),
} as const;
