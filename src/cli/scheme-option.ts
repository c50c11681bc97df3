// The --scheme option of the simulator commands (`simulate`, `simulator`, `faults`).
import { SCHEMES, type Scheme } from "../domain/scheme.ts";
import { UsageError } from "./args.ts";

export function schemeOption(value: string | undefined): Scheme {
  if (!value || !(SCHEMES as readonly string[]).includes(value)) throw new UsageError("--scheme: must be visa, mastercard or amex");
  return value as Scheme;
}
