// A webhook receiver for the benchmarks, run in a process of its own so its work is not counted against
// the sender's: the shared receiver (src/cli/webhook-receiver.ts), answering every POST 200 over keep-alive,
// counting them and noting when each transaction's first event arrived (wall-clock ms at the request's end,
// to set beside when the driver sent its purchase). The parent learns its port and asks over IPC.
import type { AddressInfo } from "node:net";
import { receiveWebhooks } from "../../src/cli/webhook-receiver.ts";

let received = 0;
let arrivals = new Map<string, number>();
const server = await receiveWebhooks({
  port: 0,
  host: "127.0.0.1",
  keepAliveMs: 60_000,
  onDelivery: ({ body, receivedAt }) => {
    received++;
    try {
      const id = (JSON.parse(body) as { data?: { id?: string } }).data?.id;
      if (id && !arrivals.has(id)) arrivals.set(id, receivedAt);
    } catch {
      // Not an event of ours: counted, not timed.
    }
    return { status: 200, headers: { "content-length": "0" } };
  },
});
process.send!({ port: (server.address() as AddressInfo).port });
process.on("message", (m: { ask: "count" | "reset" | "arrivals" }) => {
  if (m.ask === "reset") {
    received = 0;
    arrivals = new Map();
  }
  process.send!(m.ask === "arrivals" ? { count: received, arrivals: [...arrivals] } : { count: received });
});
process.on("disconnect", () => process.exit(0));
