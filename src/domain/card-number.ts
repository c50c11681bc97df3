// Card number rules for enrolment: shape, Luhn, scheme by prefix, which numbers each environment
// accepts, which test numbers the networks refuse and why, and card expiry on the service clock. Pure: no
// I/O, nothing here keeps the number.
import { luhnValid } from "./luhn.ts";

import type { Scheme } from "./scheme.ts";

export { SCHEMES, type Scheme } from "./scheme.ts";

/** Prefix and length ranges of the three schemes (Mastercard includes the 2221–2720 range). */
const SCHEME_PATTERNS: [Scheme, RegExp][] = [
  ["visa", /^4(\d{12}|\d{15}|\d{18})$/],
  ["mastercard", /^(5[1-5]\d{14}|(222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)\d{12})$/],
  ["amex", /^3[47]\d{13}$/],
];

/** The test numbers of DESIGN.md: the only numbers test keys enrol, refused under live keys. */
const TEST_PATTERNS = [/^4444000000004\d{3}$/, /^5555000000005\d{3}$/, /^3[47]00000000003\d{2}$/];
const TEST_NUMBERS = new Set(["4242424242424242", "5555555555554444"]);

export const TEST_NUMBER_RULE =
  "Visa 4444000000004xxx, Mastercard 5555000000005xxx, Amex 3400000000003xx or 3700000000003xx, " +
  "4242424242424242 or 5555555555554444";

export const detectScheme = (number: string): Scheme | undefined =>
  SCHEME_PATTERNS.find(([, pattern]) => pattern.test(number))?.[0];

export const isTestNumber = (number: string): boolean =>
  TEST_NUMBERS.has(number) || TEST_PATTERNS.some((p) => p.test(number));

export type CardNumberCheck =
  | { ok: true; scheme: Scheme; firstNumbers: string; lastNumbers: string }
  | { ok: false; rule: string };

/**
 * Whether a key of the given environment may enrol `number`. Test keys take only the test numbers;
 * live keys refuse them, so test data can never pass for a real card in live.
 * The rule never repeats the number: error messages and logs must not carry it.
 */
export function checkCardNumber(number: string, live: boolean): CardNumberCheck {
  if (!/^\d{12,19}$/.test(number)) return { ok: false, rule: "must be 12 to 19 digits, without spaces" };
  if (!luhnValid(number)) return { ok: false, rule: "fails the Luhn check" };
  const scheme = detectScheme(number);
  if (!scheme) return { ok: false, rule: "is not a Visa, Mastercard or Amex card number" };
  const test = isTestNumber(number);
  if (!live && !test) return { ok: false, rule: `a test key accepts only test card numbers (${TEST_NUMBER_RULE})` };
  if (live && test) return { ok: false, rule: "a live key does not accept test card numbers" };
  return { ok: true, scheme, firstNumbers: number.slice(0, 6), lastNumbers: number.slice(-4) };
}

/** Why a network refuses to enrol a card: the `failure.reason` of a failed card and of `card.failed`. */
export const CARD_FAILURE_REASONS = {
  issuer_declined: "The card's issuer declined to enrol it.",
  card_not_supported: "The card's issuer or product does not take part in card-linked offers.",
  verification_failed: "The network could not verify the card.",
} as const;
export type CardFailureReason = keyof typeof CARD_FAILURE_REASONS;

/**
 * The test numbers the test networks refuse, by range as Fidel's and Adyen's test cards do: the digits
 * before the check digit say why. Each range holds one Luhn-valid number, `example`.
 */
export const FAILING_TEST_NUMBERS: readonly { scheme: Scheme; range: RegExp; rangeText: string; reason: CardFailureReason; example: string }[] = [
  { scheme: "visa", range: /^444400000000491\d$/, rangeText: "444400000000491x", reason: "issuer_declined", example: "4444000000004917" },
  { scheme: "visa", range: /^444400000000492\d$/, rangeText: "444400000000492x", reason: "card_not_supported", example: "4444000000004925" },
  { scheme: "visa", range: /^444400000000493\d$/, rangeText: "444400000000493x", reason: "verification_failed", example: "4444000000004933" },
  { scheme: "mastercard", range: /^555500000000591\d$/, rangeText: "555500000000591x", reason: "issuer_declined", example: "5555000000005916" },
  { scheme: "mastercard", range: /^555500000000592\d$/, rangeText: "555500000000592x", reason: "card_not_supported", example: "5555000000005924" },
  { scheme: "mastercard", range: /^555500000000593\d$/, rangeText: "555500000000593x", reason: "verification_failed", example: "5555000000005932" },
  { scheme: "amex", range: /^3[47]000000000037\d$/, rangeText: "3[47]000000000037x", reason: "issuer_declined", example: "340000000000371" },
  { scheme: "amex", range: /^3[47]000000000038\d$/, rangeText: "3[47]000000000038x", reason: "card_not_supported", example: "340000000000389" },
  { scheme: "amex", range: /^3[47]000000000039\d$/, rangeText: "3[47]000000000039x", reason: "verification_failed", example: "340000000000397" },
];

/** The failing test numbers in words, for the API's descriptions. */
export const FAILING_NUMBER_RULE = (Object.keys(CARD_FAILURE_REASONS) as CardFailureReason[])
  .map((reason) => `${reason}: ${FAILING_TEST_NUMBERS.filter((f) => f.reason === reason).map((f) => f.example).join(", ")}`)
  .join("; ");

/**
 * How the network answers the enrolment of a number `checkCardNumber` accepted: linked, or failed with the
 * reason. Only test numbers fail (the documented ranges); a live card always links.
 */
export function enrolmentOutcome(number: string): { status: "linked" } | { status: "failed"; reason: CardFailureReason } {
  const failing = FAILING_TEST_NUMBERS.find((f) => f.range.test(number));
  return failing ? { status: "failed", reason: failing.reason } : { status: "linked" };
}

/** Why a card cannot be used (purchases, activations, look-ups), or undefined when it is linked. */
export function notLinkedRule(card: { id: string; status: string; failureReason: string | null }): string | undefined {
  if (card.status === "linked") return undefined;
  return `the card ${card.id} failed enrolment (${card.failureReason ?? "failed"}) and is not linked; enrol another card`;
}

/**
 * A card is valid through the last day of its expiry month (UTC). Returns the field to blame and the
 * rule when the expiry is already past at `now`, or undefined when the card is current.
 */
export function expiryProblem(
  expMonth: number,
  expYear: number,
  now: Date,
): { field: "expMonth" | "expYear"; rule: string } | undefined {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  const rule = `the card expired; the expiry must not be before ${String(month).padStart(2, "0")}/${year}`;
  if (expYear < year) return { field: "expYear", rule };
  if (expYear === year && expMonth < month) return { field: "expMonth", rule };
  return undefined;
}
