// How a validation failure reads, wherever input is checked (the API's 400s, the simulators' dead letters):
// each field named with its rule, "a.b: must be …; c: unknown field".
import type { ZodError } from "zod";

/** At most this many problems are listed; the rest are counted ("… and 99990 more problems"). */
export const MAX_LISTED_PROBLEMS = 10;

/**
 * The issues of `error`, one "field: rule" each; a top-level issue is named `target` (default "body").
 * Lists the first MAX_LISTED_PROBLEMS and counts the rest, so a huge invalid input gives a short answer.
 */
export function describeZodError(error: ZodError, target?: string): string {
  const problems: string[] = [];
  let total = 0;
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      const base = issue.path.length ? `${issue.path.join(".")}.` : "";
      for (const k of issue.keys.slice(0, MAX_LISTED_PROBLEMS - problems.length)) problems.push(`${base}${k}: unknown field`);
      total += issue.keys.length;
      continue;
    }
    total++;
    if (problems.length < MAX_LISTED_PROBLEMS) {
      const field = issue.path.length ? issue.path.join(".") : (target ?? "body");
      problems.push(`${field}: ${issue.message}`);
    }
  }
  const rest = total - problems.length;
  return problems.join("; ") + (rest > 0 ? `; … and ${rest} more problem${rest === 1 ? "" : "s"}` : "");
}
