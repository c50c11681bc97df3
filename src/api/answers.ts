// The error contract's last word: what an error thrown anywhere in a request becomes (ApiError as it is,
// DomainError by its kind, a dependency down as 503, anything else a logged 500), and 404 for no route.
import type { ApiRuntime } from "./context.ts";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./context.ts";
import { ApiError, fromDomainError, unavailable, type ErrorBody } from "./errors.ts";
import { DomainError } from "../domain/errors.ts";
import { BODY_REQUIRED } from "./validation.ts";

/** Whether a request carries a body by its headers (a length above 0, or chunked). */
const hasBody = (request: Request) => {
  const length = request.headers.get("content-length");
  return (length !== null && length.trim() !== "0") || request.headers.has("transfer-encoding");
};

export function answerErrors(app: OpenAPIHono<AppEnv>, services: ApiRuntime): void {
  app.onError((err, c) => {
    const requestId = c.get("requestId") ?? "unknown";
    let error: ApiError;
    if (err instanceof ApiError) error = err;
    else if (err instanceof DomainError) error = fromDomainError(err);
    else if (services.health.report(err)) {
      // A dependency is down: the request made nothing (state is written before anything is published)
      // and can be retried once it is back.
      services.log.debug({ err, requestId, path: c.req.path }, "dependency unavailable");
      error = unavailable();
    } else if (err instanceof HTTPException && err.status === 415 && !hasBody(c.req.raw)) {
      // A route that takes a JSON body, sent none under another Content-Type: the body is missing (400),
      // as it is without a Content-Type; 415 is for a body that is there in another media type.
      error = new ApiError("invalid_request", BODY_REQUIRED);
    } else if (err instanceof HTTPException && err.status < 500) {
      error = new ApiError(err.status === 400 ? "invalid_request" : "unsupported_media_type", `body: ${err.message}`);
    } else {
      services.log.error({ err, requestId, path: c.req.path }, "unhandled error");
      error = new ApiError("internal_error", "Something went wrong on our side; the request id helps us find it.");
    }
    const body: ErrorBody = { error: { code: error.code, message: error.message, requestId } };
    return c.json(body, error.status, error.headers);
  });

  app.notFound((c) => {
    const requestId = c.get("requestId") ?? "unknown";
    const body: ErrorBody = { error: { code: "route_not_found", message: `No route ${c.req.method} ${c.req.path}.`, requestId } };
    return c.json(body, 404);
  });
}
