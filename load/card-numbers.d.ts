// Types of card-numbers.js for the TypeScript that tests it (k6 loads the JavaScript itself).
export type Scheme = "visa" | "mastercard" | "amex";
export function luhnCheckDigit(payload: string): string;
export function schemeNumbers(scheme: Scheme): string[];
export function testCardNumbers(count: number): string[];
