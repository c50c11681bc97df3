// A router whose validation failures become the standard 400 body.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { validationError } from "./validation.ts";

export const router = () =>
  new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      // Only routes whose body is required validate "json" without a JSON content type: the body is missing.
      if (result.target === "json" && !/json/i.test(c.req.header("content-type") ?? "")) {
        throw new ApiError("invalid_request", "body: required, a JSON object sent with Content-Type: application/json");
      }
      if (!result.success) {
        const target = result.target === "json" ? "body" : result.target;
        throw validationError(result.error, target);
      }
    },
  });
