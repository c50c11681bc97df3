// A process's health port (HEALTH_PORT): `GET /health` answers 200 while the role runs,
// `GET /health/ready` 200 or 503 with each dependency's state, as the API answers them, and
// `GET /metrics` the process's Prometheus metrics.
import { createServer, type Server } from "node:http";
import type { Metrics } from "../metrics/index.ts";
import type { Health } from "./index.ts";

export function serveHealth(health: Health, port: number, role: string, metrics: Metrics, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "GET") return send(405, { status: "method not allowed" });
    if (req.url === "/health") return send(200, { status: "ok", role });
    if (req.url === "/metrics") {
      void metrics.expose().then(({ contentType, body }) => {
        res.writeHead(200, { "content-type": contentType });
        res.end(body);
      });
      return;
    }
    if (req.url === "/health/ready") {
      void health.ready().then((r) => send(r.ready ? 200 : 503, { status: r.ready ? "ready" : "unavailable", role, dependencies: r.dependencies }));
      return;
    }
    send(404, { status: "not found" });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}
