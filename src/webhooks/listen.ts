// `cardlink listen`: a local webhook receiver for integrators trying Cardlink out. It verifies each
// delivery's Standard Webhooks signature against the secrets given and prints the event.
import { createServer, type Server } from "node:http";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

export interface ListenOptions {
  port: number;
  secrets: string[];
  /** Where each verified (or rejected) delivery is written, one line each. */
  out: (line: string) => void;
}

export function listen({ port, secrets, out }: ListenOptions): Promise<Server> {
  const verifiers = secrets.map((secret) => new Webhook(secret));
  const server = createServer((req, res) => {
    // Deliveries are POSTs; anything else (a readiness probe) gets a plain answer and is not printed.
    if (req.method !== "POST") {
      res.writeHead(200, { "content-type": "text/plain" }).end("Cardlink webhook listener: POST deliveries here\n");
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      for (const verifier of verifiers) {
        try {
          const event = verifier.verify(body, headers) as { id: string; event: string };
          out(`verified ${event.event} ${event.id} ${body}`);
          res.writeHead(204).end();
          return;
        } catch (err) {
          if (!(err instanceof WebhookVerificationError)) throw err;
        }
      }
      out(`REJECTED (no secret verifies the signature) ${body}`);
      res.writeHead(401).end();
    });
  });
  return new Promise((resolve) => server.listen(port, () => resolve(server)));
}
