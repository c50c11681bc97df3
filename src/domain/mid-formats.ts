// Formats of the merchant identifiers (MIDs) each scheme uses, shared by every input that takes them.
// seNumber and vmid follow the spec's limits; the others follow the networks' published field sizes.
export const MID_FORMATS = {
  /** Visa merchant id: 6 to 8 digits (spec limit). */
  vmid: { pattern: /^\d{6,8}$/, maxLength: 8, rule: "must be 6 to 8 digits" },
  /** Visa store id: 6 to 8 digits, like the vmid it belongs to. */
  vsid: { pattern: /^\d{6,8}$/, maxLength: 8, rule: "must be 6 to 8 digits" },
  /** Visa card acceptor id (CAID): up to 15 letters or digits. */
  visaAcquiringMid: { pattern: /^[A-Za-z0-9]{1,15}$/, maxLength: 15, rule: "must be 1 to 15 letters or digits" },
  /** Visa acquirer BIN: 6 to 11 digits. */
  visaBin: { pattern: /^\d{6,11}$/, maxLength: 11, rule: "must be 6 to 11 digits" },
  /** Mastercard location id: 1 to 12 digits. */
  mcLocationId: { pattern: /^\d{1,12}$/, maxLength: 12, rule: "must be 1 to 12 digits" },
  /** Mastercard acquiring MID: up to 15 letters or digits. */
  mcAcquiringMid: { pattern: /^[A-Za-z0-9]{1,15}$/, maxLength: 15, rule: "must be 1 to 15 letters or digits" },
  /** Amex service establishment number: exactly 10 digits (spec limit). */
  seNumber: { pattern: /^\d{10}$/, maxLength: 10, rule: "must be exactly 10 digits" },
} as const;

export type MidField = keyof typeof MID_FORMATS;
