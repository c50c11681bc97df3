// What a service verb refuses with: a kind every transport understands and a message that names the field
// or the state and what to do. The API maps each kind to its HTTP status (src/api/errors.ts); the verbs
// know nothing of HTTP.
export type DomainErrorKind =
  /** The input breaks a rule; the message starts with the field. */
  | "invalid"
  /** No such record for this account and environment (another account's records are not found either). */
  | "not_found"
  /** The record's state does not allow this now; the message says why and what to do. */
  | "conflict"
  /** Something this verb waits on has not happened yet; retrying later can succeed. */
  | "unavailable";

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** With `unavailable`: how long to wait before retrying. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const notFound = (what: string, id: string) => new DomainError("not_found", `No ${what} with id ${id}.`);

export const invalid = (field: string, rule: string) => new DomainError("invalid", `${field}: ${rule}`);
