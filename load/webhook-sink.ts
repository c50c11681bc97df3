// A webhook receiver for the load scenarios: answers every delivery 204 at once and keeps, per program,
// how many deliveries of each event arrived and how long after the event was recorded; GET /stats reports it.
//   npx tsx load/webhook-sink.ts [--port 4500]
import { createServer, type Server } from "node:http";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

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
  return createServer((req, res) => {
    if (req.method === "GET") {
      const programId = new URL(req.url ?? "/", "http://sink").searchParams.get("programId") ?? "";
      const stats = programs.get(programId) ?? { received: 0, byEvent: {}, lagMs: [] };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(stats));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const arrived = wallNow();
      res.writeHead(204).end();
      let delivery: { event?: unknown; created?: unknown; data?: { programId?: unknown } };
      try {
        delivery = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof delivery;
      } catch {
        return; // not a Cardlink delivery: answered, not counted
      }
      const programId = typeof delivery.data?.programId === "string" ? delivery.data.programId : "";
      const event = typeof delivery.event === "string" ? delivery.event : "unknown";
      let stats = programs.get(programId);
      if (!stats) programs.set(programId, (stats = { received: 0, byEvent: {}, lagMs: [] }));
      stats.received += 1;
      stats.byEvent[event] = (stats.byEvent[event] ?? 0) + 1;
      const created = typeof delivery.created === "string" ? Date.parse(delivery.created) : NaN;
      if (Number.isFinite(created) && stats.lagMs.length < MAX_LAGS) stats.lagMs.push(arrived - created);
    });
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
