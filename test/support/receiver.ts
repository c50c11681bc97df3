// A real local HTTP server that receives webhooks, for end-to-end tests: the shared receiver
// (src/cli/webhook-receiver.ts), answering with the status the test sets and keeping every request it got.
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { receiveWebhooks } from "../../src/cli/webhook-receiver.ts";

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
  const server = await receiveWebhooks({
    port: 0,
    host: "127.0.0.1",
    onDelivery: ({ headers, body }) => {
      received.push({ headers, body });
      return answer === "hang" ? "hang" : { status: answer, ...reply };
    },
  });
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
