// The three networks by name.
import { amex } from "./amex.ts";
import { mastercard } from "./mastercard.ts";
import { visa } from "./visa.ts";
import type { SchemeAdapter } from "../engine/scheme.ts";
import type { Scheme } from "../engine/types.ts";

export const ADAPTERS: Record<Scheme, SchemeAdapter> = { visa, mastercard, amex };
