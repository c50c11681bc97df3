// A webhook receiver for the load scenarios, on the shared receiver (src/cli/webhook-receiver.ts): answers
// every delivery 204 and keeps, per program, how many deliveries of each event arrived and how long after
// the event was recorded; GET /stats reports it.
//   npx tsx load/webhook-sink.ts [--port 4500]
import type { Server } from "node:http";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { webhookServer } from "../src/cli/webhook-receiver.ts";

export interface ProgramStats {
  received: number;
  byEvent: Record<string, number>;
  /** Milliseconds from the event's `created` (service time) to its arrival here (wall time). */
  lagMs: number[];
}

// Lags kept per program; a run of an hour at 100 transactions a second stays under it.
const MAX_LAGS = 500_000;

export function createSink(wallNow: () => number = () => new Date().getTime()): Server {
  const programs = new Map<string, ProgramStats>();
  return webhookServer({
    now: wallNow,
    onOther: (req, res) => {
      const programId = new URL(req.url ?? "/", "http://sink").searchParams.get("programId") ?? "";
      const stats = programs.get(programId) ?? { received: 0, byEvent: {}, lagMs: [] };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(stats));
    },
    onDelivery: ({ body, receivedAt }) => {
      let delivery: { event?: unknown; created?: unknown; data?: { programId?: unknown } };
      try {
        delivery = JSON.parse(body) as typeof delivery;
      } catch {
        return 204; // not a Cardlink delivery: answered, not counted
      }
      const programId = typeof delivery.data?.programId === "string" ? delivery.data.programId : "";
      const event = typeof delivery.event === "string" ? delivery.event : "unknown";
      let stats = programs.get(programId);
      if (!stats) programs.set(programId, (stats = { received: 0, byEvent: {}, lagMs: [] }));
      stats.received += 1;
      stats.byEvent[event] = (stats.byEvent[event] ?? 0) + 1;
      const created = typeof delivery.created === "string" ? Date.parse(delivery.created) : NaN;
      if (Number.isFinite(created) && stats.lagMs.length < MAX_LAGS) stats.lagMs.push(receivedAt - created);
      return 204;
    },
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { port: { type: "string", default: "4500" } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write("--port: must be a port number\n");
    process.exit(2);
  }
  createSink().listen(port, "127.0.0.1", () => {
    process.stdout.write(`webhook sink on http://127.0.0.1:${port}/ (POST deliveries; GET /stats?programId=…)\n`);
  });
}
