// The values on the bus, as TypeScript sees them. The Avro schemas in ./schemas are the one definition of
// every message: their declarations are generated into ./messages.generated.ts and their zod validators into
// ./validators.generated.ts (`npm run bus:generate`; a test fails when either file is stale), and the bus
// checks every value against the schema itself (./avro.ts) on both implementations. This module adds only
// the names the code needs besides them.
import type { AmexTransaction, MastercardTransaction, VisaTransaction } from "./messages.generated.ts";
import { MISSING_REQUEST_ERRORS } from "../../domain/missing-transaction.ts";

export type {
  AmexTransaction,
  CardEnrolment,
  DeadLetter,
  EnvironmentClockAck,
  LookupReply,
  LookupRequest,
  LookupTransaction,
  MastercardTransaction,
  MerchantIds,
  OnboardingReply,
  OnboardingRequest,
  SimulatorCommand,
  SimulatorSetting,
  TrafficProgress,
  VisaTransaction,
} from "./messages.generated.ts";
/** A traffic run's options as its setting carries them (the simulators' engine has a zod schema of its own named TrafficOptions). */
export type { TrafficOptions as TrafficOptionsSetting } from "./messages.generated.ts";

// The schemas' Scheme enum is the domain's (a test compares the two types).
export type { Scheme } from "../../domain/scheme.ts";

export type NativeTransaction = VisaTransaction | MastercardTransaction | AmexTransaction;

/** The spec's missing-transaction error codes (src/domain/missing-transaction.ts; the look-up reply's schema lists the same). */
export const LOOKUP_ERROR_CODES = MISSING_REQUEST_ERRORS;
