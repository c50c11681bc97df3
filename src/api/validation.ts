// Turns zod failures into the one 400 body: every message names the field and the rule.
import { z, type ZodError } from "zod";
import { ApiError } from "./errors.ts";

export function describeZodError(error: ZodError, target?: string): string {
  return error.issues
    .map((issue) => {
      if (issue.code === "unrecognized_keys") {
        const base = issue.path.length ? `${issue.path.join(".")}.` : "";
        return issue.keys.map((k) => `${base}${k}: unknown field`).join("; ");
      }
      const field = issue.path.length ? issue.path.join(".") : (target ?? "body");
      return `${field}: ${issue.message}`;
    })
    .join("; ");
}

export const validationError = (error: ZodError, target?: string) =>
  new ApiError("invalid_request", describeZodError(error, target));

// A missing required field reads "required" rather than zod's type complaint about undefined.
z.config({
  customError: (issue) =>
    issue.code === "invalid_type" && issue.input === undefined ? "required" : undefined,
});

/**
 * Error options for a schema with its own rule message: an explicit message would otherwise also
 * replace "required" when the field is missing. Use as `z.uuid(rule("must be a UUID"))`.
 */
export const rule = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "required" : message),
});
