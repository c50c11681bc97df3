// Test card numbers for the k6 scenarios: the patterns test keys enrol (Visa 4444000000004xxx,
// Mastercard 5555000000005xxx, Amex 3400000000003xx / 3700000000003xx), each completed with its Luhn digit.
// Plain ECMAScript with no imports, so k6 and the vitest suite load the same module.

/** The digit that makes `payload + digit` pass the Luhn check. */
export function luhnCheckDigit(payload) {
  if (!/^\d+$/.test(payload)) throw new RangeError("the Luhn payload must be digits");
  let sum = 0;
  // The check digit will be the rightmost, so the payload's rightmost digit is the first one doubled.
  let double = true;
  for (let i = payload.length - 1; i >= 0; i--) {
    let d = payload.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return String((10 - (sum % 10)) % 10);
}

// Payload prefixes, how many free digits follow them (the Luhn digit comes last), and the free digits left
// out: the test numbers whose enrolment fails (src/domain/card-number.ts, FAILING_TEST_NUMBERS: Visa and
// Mastercard …491x–493x, Amex …37x–39x), which a scenario's purchases could not use.
const SCHEMES = [
  { scheme: "visa", prefixes: ["4444000000004"], free: 2, failing: ["91", "92", "93"] },
  { scheme: "mastercard", prefixes: ["5555000000005"], free: 2, failing: ["91", "92", "93"] },
  { scheme: "amex", prefixes: ["3400000000003", "3700000000003"], free: 1, failing: ["7", "8", "9"] },
];

/** Every test number of a scheme that enrols, in order: 97 Visa, 97 Mastercard, 14 Amex. */
export function schemeNumbers(scheme) {
  const spec = SCHEMES.find((s) => s.scheme === scheme);
  if (!spec) throw new RangeError(`unknown scheme ${scheme}`);
  const out = [];
  for (const prefix of spec.prefixes) {
    for (let i = 0; i < 10 ** spec.free; i++) {
      const free = String(i).padStart(spec.free, "0");
      if (spec.failing.includes(free)) continue;
      const payload = prefix + free;
      out.push(payload + luhnCheckDigit(payload));
    }
  }
  return out;
}

/**
 * `count` test numbers cycling Visa, Mastercard, Amex (so every simulator gets traffic); numbers repeat
 * once a scheme's range is used up, which Cardlink allows (a number may be enrolled more than once).
 */
export function testCardNumbers(count) {
  const pools = SCHEMES.map((s) => schemeNumbers(s.scheme));
  const out = [];
  for (let i = 0; i < count; i++) {
    const pool = pools[i % pools.length];
    out.push(pool[Math.floor(i / pools.length) % pool.length]);
  }
  return out;
}
