// The Luhn (mod 10) check every payment card number carries in its last digit.

/** Sum of the Luhn digits of `digits`, doubling every second digit counted from the right, starting with the rightmost when `doubleRightmost`. */
function luhnSum(digits: string, doubleRightmost: boolean): number {
  let sum = 0;
  let double = doubleRightmost;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum;
}

/** True when `digits` (digits only) ends in a correct Luhn check digit. */
export const luhnValid = (digits: string): boolean =>
  /^\d{2,}$/.test(digits) && luhnSum(digits, false) % 10 === 0;

/** The check digit that makes `payload + digit` pass the Luhn check. */
export function luhnCheckDigit(payload: string): string {
  if (!/^\d+$/.test(payload)) throw new RangeError("the Luhn payload must be digits");
  return String((10 - (luhnSum(payload, true) % 10)) % 10);
}
