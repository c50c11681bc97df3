// Deterministic randomness that needs no faker: a small seeded generator (fault decisions, MID
// assignment) and identifiers derived by hashing, so the same input always gives the same id.
import { createHash } from "node:crypto";

/** 32 bits from hashing the parts: a seed for mulberry32 that any process can recompute. */
export function hashSeed(...parts: (string | number)[]): number {
  return createHash("sha256").update(parts.join("\u0000")).digest().readUInt32BE(0);
}

/** mulberry32: fast, small-state, good enough for simulation draws in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const DIGITS = "0123456789";
const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

function draw(alphabet: string, length: number, random: () => number, firstNonZero: boolean): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    const from = i === 0 && firstNonZero ? 1 : 0;
    out += alphabet[from + Math.floor(random() * (alphabet.length - from))];
  }
  return out;
}

/** `length` digits, the first not 0 (identifiers that are numbers keep their length). */
export const digits = (random: () => number, length: number) => draw(DIGITS, length, random, true);
export const alphanumeric = (random: () => number, length: number) => draw(ALNUM, length, random, false);

/**
 * Draws in [0, 1) derived from the parts: the same parts give the same draws in every process. A SHA-256
 * stream in counter mode (8 draws of 32 bits per block), not a generator seeded with 32 bits: ids drawn
 * from a 32-bit seed collide by the birthday bound about once in 90,000 purchases, and the qualifier
 * would take the second purchase for a duplicate of the first.
 */
export function derivedRandom(...parts: (string | number)[]): () => number {
  const key = parts.join("\u0000");
  let block = 0;
  let bytes = Buffer.alloc(0);
  let at = 0;
  return () => {
    if (at >= bytes.length) {
      bytes = createHash("sha256").update(`${key}\u0000${block++}`).digest();
      at = 0;
    }
    const value = bytes.readUInt32BE(at) / 4_294_967_296;
    at += 4;
    return value;
  };
}

/** A UUID-shaped id derived from the parts (version 4 layout, deterministic). */
export function derivedUuid(...parts: (string | number)[]): string {
  const hex = createHash("sha256").update(parts.join("\u0000")).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${"89ab"[parseInt(hex[16]!, 16) % 4]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
