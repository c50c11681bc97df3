// How a validation failure reads, wherever input is checked (the API's 400s, the simulators' dead letters):
// each field named with its rule, "a.b: must be …; c: unknown field".
import type { ZodError } from "zod";

/** The issues of `error`, one "field: rule" each; a top-level issue is named `target` (default "body"). */
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
