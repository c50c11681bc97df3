// A router whose validation failures become the standard 400 body.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context.ts";
import { validationError } from "./validation.ts";

export const router = () =>
  new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const target = result.target === "json" ? "body" : result.target;
        throw validationError(result.error, target);
      }
    },
  });
