// A webhook receiver for the benchmarks, run in a process of its own so its work is not counted against
// the sender's: answers every POST 200 over keep-alive and counts them. The parent learns its port and
// asks for the count over IPC.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

let received = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    received++;
    res.writeHead(200, { "content-length": "0" }).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on("message", (m: { ask: "count" | "reset" }) => {
  if (m.ask === "reset") received = 0;
  process.send!({ count: received });
});
process.on("disconnect", () => process.exit(0));
