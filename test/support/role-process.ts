// Cardlink roles as separate processes of the real CLI (`tsx src/main.ts <role>`), for the fault tests:
// start one, wait for a line of its output, stop it (its whole process group).
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSX = join(ROOT, "node_modules/.bin/tsx");

export interface RoleProcess {
  name: string;
  child: ChildProcess;
  output: string[];
  /** Still running (never exited). */
  alive(): boolean;
}

export function startRole(name: string, args: string[], env: Record<string, string | undefined>): RoleProcess {
  const child = spawn(TSX, ["src/main.ts", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const role = { name, child, output: [] as string[], alive: () => child.exitCode === null && child.signalCode === null };
  const keep = (d: Buffer) => void role.output.push(d.toString());
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return role;
}

/** Resolves when the role's output matches `ready`; fails if it exits first or takes over `ms`. */
export function outputMatches(role: RoleProcess, ready: RegExp, ms = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (ready.test(role.output.join(""))) {
        clearInterval(timer);
        resolve();
      } else if (!role.alive() || Date.now() - started > ms) {
        clearInterval(timer);
        reject(new Error(`${role.name}: ${role.alive() ? `no ${ready} after ${ms} ms` : `exited with ${role.child.exitCode}`}:\n${role.output.join("")}`));
      }
    }, 50);
  });
}

export async function stopRole(role: RoleProcess): Promise<void> {
  if (!role.alive()) return;
  const exited = new Promise<void>((resolve) => role.child.once("exit", () => resolve()));
  process.kill(-role.child.pid!, "SIGTERM");
  const timer = setTimeout(() => process.kill(-role.child.pid!, "SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
