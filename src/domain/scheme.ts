// The card networks Cardlink links cards on, in the order it lists them everywhere (API enums, the
// dashboard, the simulators). The one definition: every other module imports it from here.
export const SCHEMES = ["visa", "mastercard", "amex"] as const;
export type Scheme = (typeof SCHEMES)[number];
