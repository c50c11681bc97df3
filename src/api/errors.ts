// The one error contract: a code from one list, its HTTP status, and the JSON body every failure has.
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

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  get status() {
    return errorStatus[this.code];
  }
}

export const notFound = (what: string, id: string) =>
  new ApiError("resource_not_found", `No ${what} with id ${id}.`);

/** Seconds a client is asked to wait before retrying while a dependency is down. */
export const RETRY_AFTER_SECONDS = 5;

export const unavailable = () =>
  new ApiError("service_unavailable", "A service this request needs is unavailable right now; nothing was changed. Retry after the time in Retry-After.", {
    "Retry-After": String(RETRY_AFTER_SECONDS),
  });

export const invalid = (field: string, rule: string) => new ApiError("invalid_request", `${field}: ${rule}`);

export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string };
}
