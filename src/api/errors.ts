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

export const invalid = (field: string, rule: string) => new ApiError("invalid_request", `${field}: ${rule}`);

export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string };
}
