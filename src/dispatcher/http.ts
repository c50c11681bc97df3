// The dispatcher's HTTP client: keep-alive connections per origin (undici), a connect timeout far below
// the response timeout, the webhook target policy on every address it connects to (a lookup of its own,
// so a name that resolves inside after the hook was made is refused too), and one line saying why an
// attempt got no answer — without internal addresses and ports under WEBHOOK_TARGETS=public.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from "node:dns";
import { Agent, request } from "undici";
import { checkTarget, refusedAddress, type TargetPolicy } from "../domain/webhook-targets.ts";

export interface PostResult {
  responseCode: number | null;
  error: string | null;
  /** The caller's signal cut the attempt short (`error` is its reason); no answer, and no mark against the endpoint. */
  cancelled: boolean;
  /** The first RESPONSE_BODY_LIMIT bytes of the answer's body (UTF-8), null when no answer came. */
  responseBody: string | null;
  /** The answer's `Retry-After` header as sent, if any. */
  retryAfter: string | null;
}

/** How much of an answer's body is kept for the attempt's record. */
export const RESPONSE_BODY_LIMIT = 4096;
/** Past this much read, the rest of a body is not waited for: the connection is dropped instead. */
const BODY_READ_LIMIT = 64 * 1024;

export interface WebhookClient {
  /** POSTs `body`; never throws. `signal` cuts the attempt short (the caller says why in its reason). */
  post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<PostResult>;
  close(): Promise<void>;
}

export interface WebhookClientOptions {
  /** No response (headers and body) within this is a timeout. */
  timeoutMs: number;
  /** No TCP (and TLS) connection within this is a connect timeout. */
  connectTimeoutMs: number;
  /** Which addresses deliveries may reach (WEBHOOK_TARGETS); `local` when not given. */
  targets?: TargetPolicy;
  /** How names are resolved: dns.lookup (the system's resolver and /etc/hosts) unless given. */
  resolve?: Resolve;
}

/** dns.lookup's shape, with every address asked for. */
export type Resolve = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** A name refused by the target policy on what it resolved to (an address literal is refused before any connection). */
class TargetRefused extends Error {
  readonly code = "ERR_WEBHOOK_TARGET_REFUSED";
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup, refusing the name when any address it resolves to is one the policy refuses. */
export const policyLookup =
  (policy: TargetPolicy, resolve: Resolve = dnsLookup) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true } as LookupAllOptions, (err, addresses) => {
      if (err) return callback(err, "");
      const refused = refusedAddress(addresses.map((a) => a.address), policy);
      if (refused) {
        const where = policy === "public" ? "" : ` (${refused.address})`;
        return callback(new TargetRefused(`refused by the webhook target policy: ${hostname} resolves to a ${refused.cls} address${where}`), "");
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

export function createWebhookClient({ timeoutMs, connectTimeoutMs, targets = "local", resolve }: WebhookClientOptions): WebhookClient {
  const agent = new Agent({
    connect: { timeout: connectTimeoutMs, lookup: policyLookup(targets, resolve) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
  });
  return {
    async post(url, headers, body, signal) {
      // An address literal is never looked up: it is checked here (the policy may be stricter than when the hook was made).
      const target = checkTarget(url, targets);
      if (!target.ok) return { responseCode: null, error: `refused by the webhook target policy: ${target.rule}`, cancelled: false, responseBody: null, retryAfter: null };
      const attempt = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        attempt.abort();
      }, timeoutMs);
      const cut = () => attempt.abort();
      signal.addEventListener("abort", cut, { once: true });
      try {
        const res = await request(url, { method: "POST", headers, body, dispatcher: agent, signal: attempt.signal });
        const retryAfter = res.headers["retry-after"];
        return {
          responseCode: res.statusCode,
          error: null,
          cancelled: false,
          responseBody: await bodyHead(res.body),
          retryAfter: Array.isArray(retryAfter) ? (retryAfter[0] ?? null) : (retryAfter ?? null),
        };
      } catch (err) {
        if (signal.aborted && !timedOut) return { responseCode: null, error: reasonOf(signal), cancelled: true, responseBody: null, retryAfter: null };
        return {
          responseCode: null,
          error: describeFailure(err, { timedOut, timeoutMs, connectTimeoutMs, policy: targets }),
          cancelled: false,
          responseBody: null,
          retryAfter: null,
        };
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", cut);
      }
    },
    close: () => agent.close(),
  };
}

/**
 * The first RESPONSE_BODY_LIMIT bytes of a body as text. The rest is read and dropped, so the connection
 * can be kept alive, up to BODY_READ_LIMIT; a longer body is cut off (its connection closed).
 */
async function bodyHead(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let read = 0;
  for await (const chunk of body) {
    if (keptBytes < RESPONSE_BODY_LIMIT) {
      const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    read += chunk.length;
    if (read >= BODY_READ_LIMIT) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(kept).toString("utf8");
}

const reasonOf = (signal: AbortSignal): string =>
  signal.reason instanceof Error ? signal.reason.message : String(signal.reason);

/** The cause of a failure at the innermost error undici wraps. */
function rootOf(err: unknown): { code?: string; message: string } {
  let e = err as { code?: string; message?: string; cause?: unknown } | undefined;
  while (e && !e.code && e.cause) e = e.cause as typeof e;
  return { ...(e?.code ? { code: e.code } : {}), message: e?.message ?? String(err) };
}

const TLS_CODE = /^(EPROTO$|ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|HOSTNAME_MISMATCH|ERR_OSSL)/;

/**
 * What happened, in words a tenant can act on. Under `public` the raw error (it names the address and
 * port connected to, e.g. `connect ECONNREFUSED 10.0.0.5:8080`) is left out; under `local` it follows.
 */
export function describeFailure(
  err: unknown,
  { timedOut, timeoutMs, connectTimeoutMs, policy }: { timedOut: boolean; timeoutMs: number; connectTimeoutMs: number; policy: TargetPolicy },
): string {
  const code = (err as { code?: string }).code;
  if (timedOut || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") return `timed out after ${timeoutMs} ms`;
  if (code === "UND_ERR_CONNECT_TIMEOUT") return `connect timed out after ${connectTimeoutMs} ms`;
  const root = rootOf(err);
  if (root.code === "ERR_WEBHOOK_TARGET_REFUSED") return root.message;
  const what =
    root.code === "ECONNREFUSED" ? "connection refused"
    : root.code === "ECONNRESET" || root.code === "UND_ERR_SOCKET" ? "connection reset"
    : root.code === "ENOTFOUND" || root.code === "EAI_AGAIN" ? "host not found (DNS)"
    : root.code === "ETIMEDOUT" ? `connect timed out after ${connectTimeoutMs} ms`
    : root.code === "EHOSTUNREACH" || root.code === "ENETUNREACH" ? "host unreachable"
    : root.code && TLS_CODE.test(root.code) ? `TLS handshake failed (${root.code})`
    : `connection failed${root.code ? ` (${root.code})` : ""}`;
  return policy === "public" ? what : `${what}: ${root.message}`;
}
