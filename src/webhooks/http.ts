// The dispatcher's HTTP client: keep-alive connections per origin (undici), a connect timeout far below
// the response timeout, and one line saying why an attempt got no answer.
import { Agent, request } from "undici";

export interface PostResult {
  responseCode: number | null;
  error: string | null;
}

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
}

export function createWebhookClient({ timeoutMs, connectTimeoutMs }: WebhookClientOptions): WebhookClient {
  const agent = new Agent({
    connect: { timeout: connectTimeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
  });
  return {
    async post(url, headers, body, signal) {
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
        await res.body.dump();
        return { responseCode: res.statusCode, error: null };
      } catch (err) {
        if (signal.aborted && !timedOut) return { responseCode: null, error: reasonOf(signal) };
        return { responseCode: null, error: describe(err, timedOut, timeoutMs, connectTimeoutMs) };
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", cut);
      }
    },
    close: () => agent.close(),
  };
}

const reasonOf = (signal: AbortSignal): string =>
  signal.reason instanceof Error ? signal.reason.message : String(signal.reason);

function describe(err: unknown, timedOut: boolean, timeoutMs: number, connectTimeoutMs: number): string {
  const code = (err as { code?: string }).code;
  if (timedOut || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") return `timed out after ${timeoutMs} ms`;
  if (code === "UND_ERR_CONNECT_TIMEOUT") return `connect timed out after ${connectTimeoutMs} ms`;
  const message = err instanceof Error ? err.message : String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
