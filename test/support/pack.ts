// Cardlink packed and installed as an integrator gets it, for the tests of the package, the image and the CI
// examples: the repository's files copied to a temporary folder (what a fresh clone has), `npm pack` there,
// and commands run with a clean environment, as in a shell of their own.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * A shell's environment without what `npm test` and vitest add (npm_* variables change what a nested npm
 * does; NODE_ENV, the servers' variables) and npm told to use its cache before the registry.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ["PATH", "HOME", "TMPDIR", "LANG", "USER", "CI", "XDG_CACHE_HOME", "GOPATH", "GOMODCACHE", "GOCACHE", "GOFLAGS", "GOPROXY"];
  const env: NodeJS.ProcessEnv = {};
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, npm_config_prefer_offline: "true", npm_config_update_notifier: "false", ...extra };
}

export interface Ran {
  status: number | null;
  output: string;
}

/** Runs a command to its end, with stdout and stderr together. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; /** the process group it runs in, which what it starts in the background stays in */ group?: (pid: number) => void },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? cleanEnv(), stdio: ["ignore", "pipe", "pipe"], detached: true });
    if (child.pid) options.group?.(child.pid);
    let output = "";
    child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${options.timeoutMs} ms]`;
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, options.timeoutMs ?? 300_000);
    child.once("error", reject);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

/** Fails with the command's output unless it exited 0. */
export async function succeed(ran: Promise<Ran>, what: string): Promise<string> {
  const { status, output } = await ran;
  if (status !== 0) throw new Error(`${what} exited ${status}:\n${output}`);
  return output;
}

/** The repository's files as a fresh clone has them: tracked and new files, not the ignored ones. */
export function repositoryFiles(): string[] {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`git ls-files: ${listed.stderr}`);
  return listed.stdout.split("\0").filter((f) => f !== "" && statSync(join(ROOT, f), { throwIfNoEntry: false })?.isFile());
}

export function copyFiles(files: string[], from: string, to: string): void {
  for (const file of files) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(from, file), join(to, file));
  }
}

/**
 * `npm pack` (its `prepare`: patches, build) in a copy of the repository whose node_modules is this
 * checkout's, so nothing in the checkout itself is rebuilt under the tests running beside; returns the
 * tarball's path in `into`.
 */
export async function packCardlink(into: string): Promise<string> {
  const copy = join(into, "cardlink-source");
  copyFiles(repositoryFiles(), ROOT, copy);
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
  await succeed(run("npm", ["pack", "--pack-destination", into], { cwd: copy }), "npm pack");
  const tarball = readdirSync(into).find((f) => /^cardlink-\d+\.\d+\.\d+\.tgz$/.test(f));
  if (!tarball) throw new Error(`npm pack wrote no cardlink-*.tgz in ${into}`);
  return join(into, tarball);
}

/** A long-running command in a process group of its own, its output collected; `stop` ends the group. */
export interface Background {
  child: ChildProcess;
  output(): string;
  /** Waits until the output matches, failing when the process ends first or after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
  stop(): void;
}

export function background(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Background {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  return {
    child,
    output: () => out,
    async waitFor(pattern, ms = 90_000) {
      const deadline = Date.now() + ms;
      while (!pattern.test(out)) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${command} ${args.join(" ")} ended (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${out}`);
        if (Date.now() > deadline) throw new Error(`${command} ${args.join(" ")} did not print ${pattern} in ${ms} ms:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop() {
      if (child.pid && child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {
          // already gone
        }
      }
    },
  };
}
