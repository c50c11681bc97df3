// The CLI's one-shot tasks on the database: `migrate`, `account create`, `mid-insights seed`. A task that
// changes data goes through the running server's /admin API when a server holds DATA_DIR (its embedded
// database is not shared); otherwise it opens its own system under DATA_DIR's lock and closes it when done.
import { resolve as resolvePath } from "node:path";
import { parseArgs } from "node:util";
import type { Config } from "../config/index.ts";
import { knownAdminToken } from "../config/credentials.ts";
import { createAccount } from "../services/accounts.ts";
import { MAX_SEED_COUNT, seedMidInsights } from "../services/mid-insights-seed.ts";
import { UUID_PATTERN } from "../services/ids.ts";
import type { Usage } from "../cli/connection.ts";
import { DataDirLockedError, lockHolder, usesDataDir } from "./data-dir-lock.ts";
import { openSystem, type System } from "./system.ts";

/** Runs `task` on a system of its own (no bus), closed afterwards whether the task succeeded or not. */
async function withSystem<T>(config: Config, command: string, task: (system: System) => Promise<T>): Promise<T> {
  const system = await openSystem(config, { command, bus: false });
  try {
    return await task(system);
  } finally {
    await system.close();
  }
}

/** The running server to send a data-changing task to: the one holding DATA_DIR, if any. */
function adminTarget(config: Config, usage: Usage): { url: string; token: string } | undefined {
  if (!usesDataDir(config, { bus: false })) return undefined;
  const holder = lockHolder(config.DATA_DIR);
  if (!holder) return undefined;
  if (!holder.url) throw new DataDirLockedError(resolvePath(config.DATA_DIR), holder);
  const token = knownAdminToken(config);
  if (!token) throw usage(`ADMIN_TOKEN: set it to the admin token of the server at ${holder.url} (it holds ${config.DATA_DIR})`);
  return { url: holder.url, token };
}

async function adminRequest<T>(target: { url: string; token: string }, path: string, body: unknown): Promise<T> {
  const res = await fetch(new URL(path, target.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${target.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as T & { error?: { message: string } };
  if (!res.ok) throw new Error(`${target.url}${path} answered ${res.status}: ${answer.error?.message ?? JSON.stringify(answer)}`);
  return answer;
}

export async function migrateCommand(config: Config): Promise<void> {
  // Opening a system applies what is missing: the task is to open one.
  const applied = await withSystem(config, "migrate", async ({ migrations }) => migrations);
  process.stdout.write(applied.length ? `applied ${applied.join(", ")}\n` : "up to date\n");
}

export async function accountCommand(args: string[], config: Config, usage: Usage): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: "string", default: "Publisher" },
      tier: { type: "string", default: "standard" },
      email: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (positionals[0] !== "create") throw usage("account: the subcommand is create");
  if (values.tier !== "standard" && values.tier !== "premium") {
    throw usage("--tier: must be standard or premium");
  }
  const tier: "standard" | "premium" = values.tier;
  const input = { name: values.name, tier, ...(values.email ? { email: values.email } : {}) };
  const target = adminTarget(config, usage);
  const account: Awaited<ReturnType<typeof createAccount>> = target
    ? await adminRequest(target, "/admin/accounts", input)
    : await withSystem(config, "account create", ({ services }) => createAccount(services.db, input, services.clock.now()));
  process.stdout.write(
    values.json
      ? JSON.stringify(account) + "\n"
      : `account ${account.id} (${account.tier})\n  test key: ${account.keys.test}\n  live key: ${account.keys.live}\n`,
  );
}

export async function midInsightsCommand(args: string[], config: Config, usage: Usage): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { program: { type: "string" }, count: { type: "string" }, seed: { type: "string" } },
  });
  if (positionals[0] !== "seed") throw usage("mid-insights: the subcommand is seed");
  const count = Number(values.count);
  const seed = values.seed === undefined ? config.SIMULATOR_SEED : Number(values.seed);
  const programId = values.program;
  if (!programId || !UUID_PATTERN.test(programId)) throw usage("--program: must be a program id (UUID)");
  if (!Number.isInteger(count) || count < 1 || count > MAX_SEED_COUNT) {
    throw usage(`--count: must be a whole number from 1 to ${MAX_SEED_COUNT}`);
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) throw usage("--seed: must be a whole number from 0 to 2147483647");
  const started = performance.now();
  const target = adminTarget(config, usage);
  const created = target
    ? (await adminRequest<{ created: number }>(target, `/admin/programs/${programId}/mid-insights/seed`, { count, seed })).created
    : await withSystem(config, "mid-insights seed", ({ services }) =>
        seedMidInsights(services.db, {
          programId,
          count,
          seed,
          now: services.clock.now(),
          onProgress: (n) => process.stderr.write(`\r  ${n} created`),
        }),
      );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`\ncreated ${created} MID insights in program ${programId} (seed ${seed}) in ${seconds}s\n`);
}
