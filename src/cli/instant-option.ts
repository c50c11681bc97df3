// An instant given on the command line (`sandbox create --at`, `clock advance --to`): ISO 8601 with its
// offset, as the API takes it; else a UsageError naming the option.
import { UsageError } from "./args.ts";

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export function instantOption(option: string, value: string): string {
  const at = new Date(value);
  if (!INSTANT.test(value) || Number.isNaN(at.getTime())) throw new UsageError(`--${option}: must be an instant such as 2026-03-01T09:00:00Z`);
  return at.toISOString();
}
