// When an e-mail that failed to send is tried again, and which failures are final. No I/O.

/**
 * Seconds from each failed attempt to the next: quick at first (a mail server restarting), then hourly,
 * then daily — about five days in all, as mail servers keep a message before they give up on it.
 */
export const MAIL_RETRY_SECONDS = [2, 10, 60, 300, 900, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600, 24 * 3600, 24 * 3600, 24 * 3600] as const;

/** The wait after `failedAttempts` failures, or null once the schedule is spent. */
export const mailRetryDelaySeconds = (failedAttempts: number): number | null => MAIL_RETRY_SECONDS[failedAttempts - 1] ?? null;

/**
 * A refusal sending again cannot change: the server answered 5xx to the recipient, the sender or the
 * message itself. Anything else — no connection, a timeout, a 4xx "try later", a login refused while the
 * operator corrects SMTP_URL — is tried again.
 */
export const isFinalRefusal = (f: { responseCode?: number | undefined; code?: string | undefined }) =>
  f.responseCode !== undefined && f.responseCode >= 500 && (f.code === "EENVELOPE" || f.code === "EMESSAGE");
