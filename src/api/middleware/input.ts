// Bounds on every request before a route sees it: the body size, and strings PostgreSQL cannot
// store (U+0000, unpaired surrogates) or nesting no caller needs, in every query string and JSON body.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../context.ts";
import { ApiError } from "../errors.ts";
import { INPUT_LIMITS, JSON_TYPE, jsonBodyProblem, textProblem } from "../validation.ts";

export const limitBody = bodyLimit({
  maxSize: INPUT_LIMITS.bodyBytes,
  onError: () => {
    throw new ApiError("payload_too_large", `body: at most ${INPUT_LIMITS.bodyBytes} bytes`);
  },
});

export const guardInput: MiddlewareHandler<AppEnv> = async (c, next) => {
  for (const [name, values] of Object.entries(c.req.queries())) {
    const nameProblem = textProblem(name);
    if (nameProblem) throw new ApiError("invalid_request", `query parameter names ${nameProblem}`);
    for (const value of values) {
      const problem = textProblem(value);
      if (problem) throw new ApiError("invalid_request", `${name}: ${problem}`);
    }
  }
  if (JSON_TYPE.test(c.req.header("content-type") ?? "")) {
    // Parsed once here; the route's validator reads the same cached value. Malformed JSON is left
    // to the validator, which names it.
    const body = await c.req.json().then(
      (parsed: unknown) => ({ parsed }),
      () => undefined,
    );
    const problem = body && jsonBodyProblem(body.parsed);
    if (problem) throw new ApiError("invalid_request", problem);
  }
  await next();
};
