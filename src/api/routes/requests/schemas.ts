// The request log's record as the API shows it, and the id a record goes by (the request's `Request-Id`).
import { z } from "@hono/zod-openapi";
import { BODY_LIMIT } from "../../../domain/request-log.ts";

export const REQUEST_ID_PATTERN = "^req_[A-Za-z0-9]{1,64}$";

/** A request id as a parameter: the `Request-Id` header of its answer, and `error.requestId` of an error. */
export const requestIdParam = (name: string, where: "path" | "query") =>
  z
    .string()
    .max(68, "must be a request id, req_ followed by letters and digits (the Request-Id header of an answer)")
    .regex(new RegExp(REQUEST_ID_PATTERN), "must be a request id, req_ followed by letters and digits (the Request-Id header of an answer)")
    .openapi({ param: { name, in: where }, example: "req_4fT9kQ2mZx8Lb3Nc", pattern: REQUEST_ID_PATTERN });

const BodySchema = (what: string) =>
  z
    .object({
      body: z
        .string()
        .nullable()
        .openapi({
          description:
            `The ${what} as text, null when it had none. Card numbers are masked (every digit but the last four of a card number ` +
            "field such as `number`, and of any other run of 12-19 digits that is a card number by its first digit and Luhn check), " +
            "secret keys keep only their prefix and last four (`sk_test_****wxyz`), signing secrets (`whsec_`) and `secret` fields " +
            `nothing. At most ${BODY_LIMIT} characters (16 KiB of ASCII JSON); the rest is cut.`,
        }),
      truncated: z.boolean().openapi({ description: `Whether the ${what} was longer than ${BODY_LIMIT} characters and is cut.` }),
    })
    .openapi({ description: `The ${what}.` });

export const RequestRecordSchema = z
  .object({
    id: z.string().openapi({ description: "The request id: the `Request-Id` header of its answer, and `error.requestId` of an error.", example: "req_4fT9kQ2mZx8Lb3Nc" }),
    method: z.string().openapi({ example: "POST" }),
    path: z.string().openapi({ example: "/v1/programs/3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b/cards" }),
    query: z.string().nullable().openapi({ description: "The query string, without `?` (masked as the bodies are); null when none.", example: "limit=20" }),
    status: z.number().int().openapi({ description: "The answer's HTTP status.", example: 400 }),
    errorCode: z.string().nullable().openapi({ description: "The answer's `error.code` when it was an error.", example: "invalid_request" }),
    latencyMs: z.number().openapi({ description: "From the request's arrival to its answer, in milliseconds (to a tenth).", example: 12.4 }),
    keyId: z.uuid().openapi({ description: "The id of the key the request presented (GET /admin/accounts/{accountId}/keys lists an account's keys by id, with their last four characters)." }),
    live: z.boolean(),
    source: z.enum(["api", "dashboard"]).openapi({ description: "`api`: sent with a key over HTTP. `dashboard`: the dashboard's call for a key signed in to it." }),
    idempotencyKey: z.string().nullable().openapi({ description: "The request's `Idempotency-Key`, if it sent one." }),
    resourceId: z.uuid().nullable().openapi({
      description:
        "What a successful create, change or delete made or acted on: the `id` of its answer when that is one record, else the last id in its path; null for reads and failures. " +
        "The webhooks the request caused are the environment's events about it from the request on (GET /requests/{requestLogId}/webhook-events).",
    }),
    created: z.string().openapi({ format: "date-time", description: "When the request arrived, on its environment's clock (a sandbox's own)." }),
    request: BodySchema("request's body"),
    response: BodySchema("answer's body"),
  })
  .openapi("RequestRecord");
