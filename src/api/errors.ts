// The one error contract: a code from one list, its HTTP status, and the JSON body every failure has.
// Services refuse with domain errors (src/domain/errors.ts); this module maps them to HTTP.
import type { DomainError, DomainErrorKind } from "../domain/errors.ts";
export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  tier_restricted: 403,
  forbidden: 403,
  resource_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** An error message is cut to this many bytes of UTF-8 (with "…"), so every error body stays under 4 KB. */
export const MAX_MESSAGE_BYTES = 3072;

/** `message` cut at a character boundary to at most MAX_MESSAGE_BYTES bytes of UTF-8. */
export function boundedMessage(message: string): string {
  if (message.length <= MAX_MESSAGE_BYTES / 3 || Buffer.byteLength(message) <= MAX_MESSAGE_BYTES) return message;
  const cut = Buffer.from(message).subarray(0, MAX_MESSAGE_BYTES - 3).toString("utf8").replace(/\uFFFD$/, "");
  return `${cut}…`;
}

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(boundedMessage(message));
  }
  get status() {
    return errorStatus[this.code];
  }
}

/** The HTTP answer to a service's refusal: the same message under the code of its kind. */
const domainCodes = {
  invalid: "invalid_request",
  not_found: "resource_not_found",
  conflict: "conflict",
  unavailable: "service_unavailable",
} as const satisfies Record<DomainErrorKind, ErrorCode>;

export const fromDomainError = (err: DomainError) =>
  new ApiError(
    domainCodes[err.kind],
    err.message,
    err.retryAfterSeconds === undefined ? {} : { "Retry-After": String(err.retryAfterSeconds) },
  );

/** Seconds a client is asked to wait before retrying while a dependency is down. */
export const RETRY_AFTER_SECONDS = 5;

export const unavailable = () =>
  new ApiError("service_unavailable", "A service this request needs is unavailable right now; nothing was changed. Retry after the time in Retry-After.", {
    "Retry-After": String(RETRY_AFTER_SECONDS),
  });

// Routes refuse input with the services' own helpers, so a rule's message is written once.
export { invalid, notFound } from "../domain/errors.ts";

export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string };
}
