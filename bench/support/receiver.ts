// A webhook receiver for the benchmarks, run in a process of its own so its work is not counted against
// the sender's: answers every POST 200 over keep-alive, counts them and notes when each transaction's
// first event arrived (wall-clock ms, to set beside when the driver sent its purchase). The parent learns
// its port and asks over IPC.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

let received = 0;
let arrivals = new Map<string, number>();
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const at = Date.now();
    received++;
    try {
      const id = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data?: { id?: string } }).data?.id;
      if (id && !arrivals.has(id)) arrivals.set(id, at);
    } catch {
      // Not an event of ours: counted, not timed.
    }
    res.writeHead(200, { "content-length": "0" }).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on("message", (m: { ask: "count" | "reset" | "arrivals" }) => {
  if (m.ask === "reset") {
    received = 0;
    arrivals = new Map();
  }
  process.send!(m.ask === "arrivals" ? { count: received, arrivals: [...arrivals] } : { count: received });
});
process.on("disconnect", () => process.exit(0));
