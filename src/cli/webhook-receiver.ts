// The one local HTTP server that receives webhooks: `listen` and the flows verify and show what it
// receives, the tests keep it, the benchmarks and the load scenarios count and time it.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from "node:http";

/** One request as it arrived: the path it was posted to, its headers, its body and when it ended. */
export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `now()` when its body had arrived whole. */
  receivedAt: number;
}

/** How a delivery is answered: a status, a status with headers and body, or "hang" to never answer. */
export type Answer = number | { status: number; headers?: OutgoingHttpHeaders | undefined; body?: string | undefined } | "hang";

export interface WebhookServerOptions {
  /** Called with each delivery; its answer (or 500 if it fails) goes back to the sender. */
  onDelivery: (delivery: Delivery) => Answer | Promise<Answer>;
  /** Answers requests that are not POSTs (a readiness probe, a stats page); without it they are deliveries too. */
  onOther?: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  /** How long an idle kept-alive connection stays open (Node's 5 s unless given). */
  keepAliveMs?: number | undefined;
  /** The clock `receivedAt` reads (wall-clock milliseconds unless given). */
  now?: (() => number) | undefined;
}

function answer(res: ServerResponse, given: Answer) {
  if (given === "hang") return;
  const { status, headers, body } = typeof given === "number" ? { status: given, headers: undefined, body: undefined } : given;
  res.writeHead(status, headers).end(body);
}

/** The receiver's server, not yet listening (a caller that listens itself, such as the load sink). */
export function webhookServer({ onDelivery, onOther, keepAliveMs, now = Date.now }: WebhookServerOptions): Server {
  const server = createServer((req, res) => {
    if (onOther && req.method !== "POST") return onOther(req, res);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      // Stamped before anything else is done with it, so what the benchmarks time is the sender's.
      const receivedAt = now();
      const delivery = { path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt };
      const given = onDelivery(delivery);
      if (given instanceof Promise) {
        void given.then(
          (a) => answer(res, a),
          () => answer(res, 500),
        );
      } else answer(res, given);
    });
  });
  if (keepAliveMs !== undefined) server.keepAliveTimeout = keepAliveMs;
  return server;
}

/** Starts the receiver on `port` (0: any free one) and `host` (every interface unless given). */
export function receiveWebhooks(options: WebhookServerOptions & { port: number; host?: string | undefined }): Promise<Server> {
  const server = webhookServer(options);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}
