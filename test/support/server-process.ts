// A real `cardlink` process (bin/cardlink.mjs) on a DATA_DIR and a free port, for tests of what only a
// process shows: locks across processes, signals, draining.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

export interface CardlinkProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

export interface ServerProcess extends CardlinkProcess {
  url: string;
}

/** `cardlink <args>` on the embedded defaults (no server variables) at info level, `env` over them. */
export function spawnCardlink(args: string[], env: Record<string, string>): CardlinkProcess {
  const child = spawn(process.execPath, ["bin/cardlink.mjs", ...args], {
    env: { ...process.env, DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

export async function startServer(env: Record<string, string>, args = ["start"]): Promise<ServerProcess> {
  const port = await freePort();
  const cardlink = spawnCardlink(args, { PORT: String(port), ...env });
  const { child, output } = cardlink;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`cardlink exited with ${child.exitCode}:\n${output()}`);
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok && output().includes("is running at")) break;
    if (Date.now() > deadline) throw new Error(`cardlink did not start:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { ...cardlink, url };
}
