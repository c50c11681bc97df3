// Starts bench/support/receiver.ts as a child process and talks to it.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface ChildReceiver {
  url: string;
  count(): Promise<number>;
  /** When each transaction's first event arrived (wall-clock ms), by transaction id. */
  arrivals(): Promise<Map<string, number>>;
  reset(): Promise<void>;
  close(): void;
}

export async function startChildReceiver(): Promise<ChildReceiver> {
  const child: ChildProcess = fork(fileURLToPath(new URL("./receiver.ts", import.meta.url)), [], { execArgv: ["--import", "tsx"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(m.port));
    child.once("error", reject);
  });
  const ask = (what: "count" | "reset" | "arrivals") =>
    new Promise<{ count: number; arrivals?: [string, number][] }>((resolve) => {
      child.once("message", resolve);
      child.send({ ask: what });
    });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    count: async () => (await ask("count")).count,
    arrivals: async () => new Map((await ask("arrivals")).arrivals),
    reset: async () => void (await ask("reset")),
    close: () => child.kill(),
  };
}
