// `cardlink listen`: a local webhook receiver for integrators trying Cardlink out. It verifies each
// delivery's Standard Webhooks signature against the secrets it knows, prints the event and, when
// asked, forwards the signed request unchanged to the integrator's own server and prints its answer.
import type { IncomingHttpHeaders, Server, ServerResponse } from "node:http";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { receiveWebhooks, type Answer, type Delivery } from "./webhook-receiver.ts";

export interface ListenOptions {
  port: number;
  /** The hook secrets; read at each delivery, so hooks registered after the start count. */
  secrets: () => readonly string[];
  /** Where each verified delivery is written, one line each. */
  out: (line: string) => void;
  /** Where rejections and forwarded answers are written (`out` unless given: --print-json keeps them off stdout). */
  info?: ((line: string) => void) | undefined;
  /**
   * `body`: `verified <event> <id> <body>` (the `--secret` form); `summary`: the event, its id and what it
   * says; `json`: the verified body alone, one JSON document a line (`--print-json`).
   */
  format: "body" | "summary" | "json";
  /** Called with each verified event, before it is answered (the flow runner's expectations read them). */
  onEvent?: ((event: VerifiedEvent) => void) | undefined;
  /**
   * Whether a verified delivery is shown and forwarded; one that is not is answered 204 unprinted (a
   * listener that caught up drops an event it has shown already). Awaited, so it may hold a delivery back.
   */
  admit?: ((event: VerifiedEvent) => boolean | Promise<boolean>) | undefined;
  /** The integrator's own endpoint: each verified request is sent there unchanged and its answer printed. */
  forwardTo?: string | undefined;
}

export interface Event {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** A delivery whose signature verified: its parsed body and when it arrived (performance.now() at its end). */
export interface VerifiedEvent extends Event {
  created: string;
  receivedAt: number;
  /** The path it was posted to (a receiver can give each hook a path of its own). */
  path: string;
}

const money = (n: unknown, currency: unknown) => `${String(n)} ${String(currency)}`;

/** One line's worth of what the event says: the offer result of a transaction, a location's scheme status… */
export function summarise({ event, data }: Event): string {
  if (event.startsWith("transaction.")) {
    const offer = data.offer as { qualified: boolean; cashback: number; message: string[] } | undefined;
    const brand = (data.brand as { name?: string } | null)?.name;
    const what = `${data.type === "refund" ? "refund" : "purchase"} ${money(data.amount, data.currency)}${brand ? ` at ${brand}` : ""}`;
    if (!offer) return what;
    return offer.qualified
      ? `${what}: qualified, cashback ${money(offer.cashback, data.currency)}`
      : `${what}: not qualified (${offer.message.join("; ") || "no live offer applies"})`;
  }
  if (event === "location.status") {
    return `location ${(data.location as { id: string }).id} ${String(data.scheme)} ${String(data.status)}`;
  }
  if (event.startsWith("offer.") || event.startsWith("marketplace.offer.")) {
    return `${event.startsWith("marketplace.") ? "marketplace " : ""}offer ${String(data.id)} "${String(data.name)}" ${String(data.status)} until ${String(data.endDate)}`;
  }
  if (event === "brand.consent") return `brand ${String(data.id)} "${String(data.name)}" consent ${String(data.consent)}`;
  if (event.startsWith("card.")) {
    const failure = data.failure as { reason: string } | null;
    return `card ${String(data.id)} ${String(data.scheme)} ${String(data.lastNumbers)} ${failure ? `failed: ${failure.reason}` : String(data.status)}`;
  }
  if (event === "program.status") {
    const sync = data.sync as { status: string; locations: number } | null;
    return `program ${String(data.id)} ${String(data.status)}${sync ? `, sync ${sync.status} (${sync.locations} locations)` : ""}`;
  }
  if (event.startsWith("missing-transaction-request.")) return `request ${String(data.id)} ${String(data.status)}`;
  if (event === "hook.disabled") return `hook ${String(data.id)} (${String(data.event)} at ${String(data.url)}) disabled: ${String(data.disabledReason)}`;
  return "";
}

const FORWARDED = ["content-type", "webhook-id", "webhook-timestamp", "webhook-signature"];

async function forward(url: string, headers: IncomingHttpHeaders, body: string): Promise<{ status: number; line: string }> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: Object.fromEntries(FORWARDED.filter((h) => headers[h] !== undefined).map((h) => [h, String(headers[h])])),
      body,
      signal: AbortSignal.timeout(20_000),
    });
    const text = (await res.text()).slice(0, 200).replace(/\s+/g, " ");
    return { status: res.status, line: `  -> ${url} answered ${res.status} in ${Math.round(performance.now() - started)} ms${text ? `: ${text}` : ""}` };
  } catch (err) {
    const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    return { status: 502, line: `  -> ${url} failed: ${reason}` };
  }
}

const printed = (format: ListenOptions["format"], event: Event, body: string) =>
  format === "json" ? body : format === "body" ? `verified ${event.event} ${event.id} ${body}` : `${event.event} ${event.id} ${summarise(event)}`;

/**
 * Shows one verified event — its line, `onEvent` — and, with `forwardTo`, sends the signed request there
 * and prints the answer. Answers the status its sender gets: 204, or the forward's. Live deliveries and
 * the events `listen --since` catches up on go through the same presentation.
 */
export function presenter({ out, info, format, forwardTo, onEvent }: Omit<ListenOptions, "port" | "secrets" | "admit">) {
  const note = info ?? out;
  return async (event: VerifiedEvent, body: string, headers: IncomingHttpHeaders): Promise<number> => {
    out(printed(format, event, body));
    onEvent?.(event);
    if (!forwardTo) return 204;
    // The dispatcher sees the integrator's answer, so its retries behave as they would in production.
    const { status, line } = await forward(forwardTo, headers, body);
    note(line);
    return status;
  };
}

/** The event one of `secrets` signed this delivery as, or undefined when none verifies it. */
function verifiedBy(secrets: readonly string[], { body, headers }: Delivery): Event | undefined {
  const strings = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
  for (const secret of secrets) {
    try {
      return new Webhook(secret).verify(body, strings) as Event;
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
    }
  }
  return undefined;
}

/** The shared webhook receiver (./webhook-receiver.ts) with the signature check and the presenter. */
export function listen(options: ListenOptions): Promise<Server> {
  const { port, secrets, out, info, admit } = options;
  const note = info ?? out;
  const present = presenter(options);
  const onDelivery = (delivery: Delivery): Answer | Promise<Answer> => {
    const event = verifiedBy(secrets(), delivery);
    if (!event) {
      note(`REJECTED (no secret verifies the signature) ${delivery.body}`);
      return 401;
    }
    const verified: VerifiedEvent = { ...(event as VerifiedEvent), receivedAt: delivery.receivedAt, path: delivery.path };
    return Promise.resolve(admit ? admit(verified) : true)
      .then((shown) => (shown ? present(verified, delivery.body, delivery.headers) : 204))
      .catch((err: unknown) => {
        note(`ERROR ${err instanceof Error ? err.message : String(err)}`);
        return 500;
      });
  };
  // Deliveries are POSTs; anything else (a readiness probe) gets a plain answer and is not printed.
  const onOther = (_req: unknown, res: ServerResponse) =>
    void res.writeHead(200, { "content-type": "text/plain" }).end("Cardlink webhook listener: POST deliveries here\n");
  return receiveWebhooks({ port, onDelivery, onOther, now: () => performance.now() });
}
