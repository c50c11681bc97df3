// The opaque `start` cursor: base64url of the last row's sort key, so pages stay stable
// while rows are inserted (keyset pagination).
import { invalid } from "../domain/errors.ts";

export type CursorKey = [value: string | number | null, id: string];

export const encodeCursor = (key: CursorKey): string => Buffer.from(JSON.stringify(key)).toString("base64url");

export function decodeCursor(start: string): CursorKey {
  try {
    const key = JSON.parse(Buffer.from(start, "base64url").toString("utf8")) as unknown;
    if (
      Array.isArray(key) &&
      key.length === 2 &&
      typeof key[1] === "string" &&
      (key[0] === null || typeof key[0] === "string" || typeof key[0] === "number")
    ) {
      return key as CursorKey;
    }
  } catch {
    // fall through to the one error below
  }
  throw invalid("start", "not a cursor from the `last` field of an earlier response.");
}
