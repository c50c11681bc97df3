// The request log's rules over plain text: what of a body is kept (card numbers and secrets masked, cut to a
// bound), which answers name an error and a resource, and the filters a reader gives (a status or a class of
// them, a path with `*`). Pure: the writer applies them off the request path, the API and the CLI read them.
import { luhnValid } from "./luhn.ts";

/** Characters of a request's or an answer's body the log keeps (16 KiB of ASCII JSON); the rest is cut. */
export const BODY_LIMIT = 16_384;
/**
 * Kept past the bound until the body is masked: enough that a card number or a key that straddles the
 * bound is whole when the masks run, and so masked before the cut (a card number field with separators, its
 * name and quotes, is under 80 characters).
 */
const MASK_MARGIN = 256;

/** A body as the request path hands it to the writer: at most the bound and the margin, copied out of the answer. */
export interface HeldBody {
  text: string;
  /** Whether the body was longer than BODY_LIMIT. */
  cut: boolean;
}

/**
 * What the request path keeps of a body: cheap (a slice), and a copy, so a long answer the writer holds
 * while PostgreSQL is away keeps no more than the bound alive (V8's slices keep their whole parent).
 */
export function holdBody(text: string): HeldBody {
  if (text.length <= BODY_LIMIT) return { text, cut: false };
  return { text: Buffer.from(text.slice(0, BODY_LIMIT + MASK_MARGIN), "utf16le").toString("utf16le"), cut: true };
}

/** A kept body: masked, cut to BODY_LIMIT, and text PostgreSQL stores (no U+0000, no unpaired surrogate). */
export interface LoggedBody {
  body: string;
  truncated: boolean;
}

// U+0000 is what PostgreSQL's text refuses.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function logBody(held: HeldBody): LoggedBody {
  const masked = maskBody(held.text.replace(UNSTORABLE, "\uFFFD"));
  if (!held.cut && masked.length <= BODY_LIMIT) return { body: masked, truncated: false };
  // Never half a surrogate pair at the end.
  const end = /[\uD800-\uDBFF]/.test(masked.charAt(BODY_LIMIT - 1)) ? BODY_LIMIT - 1 : BODY_LIMIT;
  return { body: masked.slice(0, end), truncated: true };
}

/** Fields that hold a card number, whatever it looks like (a mistyped one, which fails Luhn, is the one a 400 is about). */
const CARD_NUMBER_FIELD = /("(?:number|cardNumber|card_number|pan|primaryAccountNumber)"\s*:\s*)("(?:[^"\\]|\\.)*"|\d+)/gi;
/** Every digit followed by at least four more: a card number keeps its last four. */
const ALL_BUT_LAST_FOUR = /\d(?=(?:\D*\d){4})/g;
/** A run of 12 to 19 digits, single spaces or dashes between them, not part of a longer word or number. */
const DIGIT_RUN = /(?<![\w-])\d(?:[ -]?\d){11,18}(?![\w-])/g;
/** Secret keys (`sk_test_…`, `sk_live_…`): the prefix and the last four are kept, as a dashboard shows a key. */
const SECRET_KEY = /\b(sk_(?:test|live)_)([A-Za-z0-9]+)/g;
/** Standard Webhooks signing secrets (`whsec_` + base64): nothing of them is kept. */
const SIGNING_SECRET = /\bwhsec_[A-Za-z0-9+/=]*/g;
/** Fields that hold a secret by name, whatever its value. */
const SECRET_FIELD = /("(?:secret|password)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;

const maskDigits = (s: string) => s.replace(ALL_BUT_LAST_FOUR, "*");

/** Whether `digits` looks like a card number: 12 to 19 digits, a card network's first digit (2–6), a valid Luhn check digit. */
const looksLikePan = (digits: string) => digits.length >= 12 && digits.length <= 19 && /^[2-6]/.test(digits) && luhnValid(digits);

/**
 * Masks the card numbers in a run of digit groups: the longest window of whole groups that looks like a
 * card number, then the same in what is left on each side ("12 4444 0000 0000 4008" masks the last four groups).
 */
function maskRun(run: string): string {
  const groups = run.split(/(?<=\d)(?=[ -])|(?<=[ -])(?=\d)/);
  const digitsOf = (from: number, to: number) => groups.slice(from, to).join("").replace(/\D/g, "");
  for (let size = groups.length; size > 0; size--) {
    for (let from = 0; from + size <= groups.length; from++) {
      const to = from + size;
      if (/\D/.test(groups[from]!) || /\D/.test(groups[to - 1]!) || !looksLikePan(digitsOf(from, to))) continue;
      const before = groups.slice(0, from).join("");
      const after = groups.slice(to).join("");
      return maskRun(before) + maskDigits(groups.slice(from, to).join("")) + maskRun(after);
    }
  }
  return run;
}

/**
 * A body with its card numbers and secrets masked: card number fields (all but the last four digits), any
 * other run of 12–19 digits that is a card number by its first digit and Luhn check, secret keys (all but
 * the prefix and the last four), signing secrets and `secret`/`password` fields (entirely).
 */
export function maskBody(text: string): string {
  return text
    .replace(CARD_NUMBER_FIELD, (_, name: string, value: string) => name + maskDigits(value))
    .replace(DIGIT_RUN, maskRun)
    .replace(SECRET_KEY, (_, prefix: string, rest: string) => `${prefix}****${rest.length > 8 ? rest.slice(-4) : ""}`)
    .replace(SIGNING_SECRET, "whsec_****")
    .replace(SECRET_FIELD, '$1"****"');
}

/** The error code of an error answer (the one error contract: `{"error": {"code", …}}`), else null. */
export function errorCodeOf(status: number, answer: string | undefined): string | null {
  if (status < 400 || !answer) return null;
  try {
    const code = (JSON.parse(answer) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === "string" ? code : null;
  } catch {
    return null;
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const WHOLE_UUID = new RegExp(`^${UUID.source}$`, "i");
const LEADING_ID = new RegExp(`^\\{"id":"(${UUID.source})"`, "i");

/**
 * The resource a request made or changed, which its webhooks are about: the `id` of a successful answer that
 * is one record, else the last id in the path (`DELETE /locations/{id}`, `POST /transactions/{id}/void`).
 * Reads make nothing, so they have none.
 */
export function resourceIdOf(method: string, path: string, status: number, answer: string | undefined, answerCut: boolean): string | null {
  if (method === "GET" || method === "HEAD" || status < 200 || status >= 300) return null;
  // Records are answered with their id first: read without parsing the whole answer where it is.
  const first = answer?.match(LEADING_ID)?.[1];
  if (first) return first.toLowerCase();
  if (answer && !answerCut) {
    try {
      const id = (JSON.parse(answer) as { id?: unknown } | null)?.id;
      if (typeof id === "string" && WHOLE_UUID.test(id)) return id.toLowerCase();
    } catch {
      // Not JSON: the path names it, if anything does.
    }
  }
  return path.match(UUID)?.at(-1)?.toLowerCase() ?? null;
}

/** The methods the log's method filter takes. */
export const REQUEST_METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"] as const;

/** A status filter: one status (`404`) or a class (`4xx`). */
export const STATUS_FILTER = /^[1-5]([0-9]{2}|xx)$/;

/** The statuses a filter takes, inclusive. */
export function statusRange(filter: string): [number, number] {
  if (filter.endsWith("xx")) {
    const hundred = Number(filter[0]) * 100;
    return [hundred, hundred + 99];
  }
  return [Number(filter), Number(filter)];
}

/**
 * The SQL LIKE patterns a path filter matches: the path itself and what lies under it (`/v1/cards` matches
 * `/v1/cards/{id}` too), a `*` standing for any characters (a program's id in the path of its cards).
 */
export function pathPatterns(filter: string): [exact: string, under: string] {
  const like = filter.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, "%");
  return [like, `${like.replace(/\/+$/, "")}/%`];
}
