// The three networks by name.
import { amex } from "../amex/index.ts";
import { mastercard } from "../mastercard/index.ts";
import { visa } from "../visa/index.ts";
import type { SchemeAdapter } from "./scheme.ts";
import type { Scheme } from "./types.ts";

export const ADAPTERS: Record<Scheme, SchemeAdapter> = { visa, mastercard, amex };
