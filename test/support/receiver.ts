// A real local HTTP server that receives webhooks, for end-to-end tests; it answers with the status
// the test sets and keeps every request it got.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next requests are answered with: a status (with these headers and body), or "hang" to never answer. */
  respondWith(answer: number | "hang", reply?: Reply): void;
  /** Waits until `count` requests have arrived (polls; fails after `ms`). */
  waitFor(count: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export interface Reply {
  headers?: Record<string, string>;
  body?: string;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let answer: number | "hang" = 200;
  let reply: Reply = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (answer === "hang") return;
      res.writeHead(answer, reply.headers).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    respondWith: (a, r = {}) => {
      answer = a;
      reply = r;
    },
    async waitFor(count, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
