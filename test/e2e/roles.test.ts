// The distributed mode as docker-compose runs it: `migrate`, then `api`, `qualifier`, `dispatcher` and
// `simulator --scheme visa` as separate processes of the real CLI on the real Kafka (values single-object
// encoded, or through the registry when SCHEMA_REGISTRY_URL is set) and a fresh PostgreSQL database. A
// test purchase made over the api process's HTTP port comes back as signed webhooks on a local receiver.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { freePort } from "../support/role-process.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localAt } from "../../src/domain/local-dates.ts";
import { openPostgres, type Db } from "../../src/store/db.ts";
import { CARD_NUMBERS } from "../support/fixtures.ts";
import { haveInfra, infra } from "../support/infra.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// What `npx tsx` runs (the Dockerfile's entrypoint is `npx tsx src/main.ts`), without npm in between.
const TSX = join(ROOT, "node_modules/.bin/tsx");
const ADMIN_TOKEN = `adm_${randomBytes(16).toString("hex")}`;

interface Role {
  name: string;
  child: ChildProcess;
  output: string[];
}

describe.skipIf(!haveInfra("kafkaBrokers", "databaseUrl"))("one role per process on Kafka and PostgreSQL", () => {
  const database = `cardlink_roles_${randomBytes(4).toString("hex")}`;
  const dataDir = mkdtempSync(join(tmpdir(), "cardlink-roles-"));
  const roles: Role[] = [];
  let server: Db;
  let receiver: Receiver;
  let api: string;
  let env: Record<string, string | undefined>;

  /** Runs `tsx src/main.ts <args>` in a process group of its own, so a stop reaches tsx's node child too. */
  function run(name: string, args: string[]): Role {
    const child = spawn(TSX, ["src/main.ts", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const role = { name, child, output: [] as string[] };
    const keep = (d: Buffer) => void role.output.push(d.toString());
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    roles.push(role);
    return role;
  }

  /** Resolves when the role's output matches `ready`; fails if the role exits first or takes over 60 s. */
  function until(role: Role, ready: RegExp): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`${role.name}: not ready after 60 s:\n${role.output.join("")}`)), 60_000);
      const check = () => {
        if (ready.test(role.output.join(""))) done();
      };
      const exited = (code: number | null) => fail(new Error(`${role.name}: exited with ${code}:\n${role.output.join("")}`));
      function done() {
        clearTimeout(timer);
        role.child.stdout!.off("data", check);
        role.child.off("exit", exited);
        resolve();
      }
      function fail(err: Error) {
        done();
        reject(err);
      }
      role.child.stdout!.on("data", check);
      role.child.once("exit", exited);
      check();
    });
  }

  async function stop(role: Role): Promise<void> {
    const { child } = role;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    process.kill(-child.pid!, "SIGTERM");
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }

  beforeAll(async () => {
    server = openPostgres(infra.databaseUrl!, { max: 1 });
    await server.exec(`create database ${database}`);
    const url = new URL(infra.databaseUrl!);
    url.pathname = `/${database}`;
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    env = { ...process.env, DATABASE_URL: url.toString(), DATA_DIR: dataDir, PORT: String(port), ADMIN_TOKEN, LOG_LEVEL: "info" };
    receiver = await startReceiver();

    // As compose orders it: migrate runs to completion before any role starts.
    const migrate = run("migrate", ["migrate"]);
    const code = await new Promise<number | null>((resolve) => migrate.child.once("exit", resolve));
    expect(code, migrate.output.join("")).toBe(0);
    await Promise.all([
      until(run("api", ["api"]), /"msg":"api listening"/),
      until(run("qualifier", ["qualifier"]), /"msg":"role running"/),
      until(run("dispatcher", ["dispatcher"]), /"msg":"role running"/),
      until(run("simulator", ["simulator", "--scheme", "visa"]), /"msg":"simulator running"/),
    ]);
  }, 120_000);

  it("says which Kafka value codec the bus roles use", () => {
    const codec = infra.schemaRegistryUrl ? '"codec":"schema registry"' : '"codec":"single-object"';
    for (const name of ["qualifier", "simulator"]) expect(roles.find((r) => r.name === name)!.output.join("")).toContain(codec);
  });

  afterAll(async () => {
    await Promise.all(roles.map(stop));
    await receiver?.close();
    await server?.exec(`drop database if exists ${database} with (force)`);
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const call = async <T = Record<string, unknown>>(method: string, path: string, headers: Record<string, string>, body?: unknown, status = [200, 201]) => {
    const res = await fetch(api + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!status.includes(res.status)) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
    return { status: res.status, body: JSON.parse(text) as T };
  };

  it("qualifies a test purchase made through the api process and delivers its signed webhooks", { timeout: 90_000 }, async () => {
    const account = (await call<{ id: string; keys: { test: string } }>("POST", "/admin/accounts", { Authorization: `Bearer ${ADMIN_TOKEN}` }, { name: "Roles", tier: "standard" })).body;
    const key = { "Cardlink-Key": account.keys.test };
    const post = async (path: string, body: unknown) => (await call<{ id: string; secret: string }>("POST", path, key, body)).body;
    const program = await post("/v1/programs", { name: "Distributed" });
    const brand = await post("/v1/brands", { name: "Coffee House" });
    const location = await post(`/v1/programs/${program.id}/locations`, { address: "1 High Street", brandId: brand.id, city: "London", countryCode: "GBR", postcode: "SW1A 1AA" });
    const card = await post(`/v1/programs/${program.id}/cards`, { number: CARD_NUMBERS.test, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
    // Service time runs at real speed in every process: the offer started yesterday in London.
    const startDate = localAt(new Date(Date.now() - 86_400_000), "Europe/London");
    const offer = await post("/v1/offers", { brandId: brand.id, countryCode: "GBR", name: "10% off coffee", publisherId: account.id, startDate, type: { name: "discount", value: 10 } });
    await post(`/v1/offers/${offer.id}/locations/${location.id}`, {});
    const secrets: Record<string, string> = {};
    for (const event of ["transaction.auth", "transaction.auth.qualified"]) {
      secrets[event] = (await post(`/v1/programs/${program.id}/hooks`, { event, url: receiver.url })).secret;
    }

    // 201 with the qualifier's result, or 202 if the qualifier process took longer than the api waits.
    const sent = await call<{ id: string }>("POST", "/v1/transactions/test", key, { cardId: card.id, locationId: location.id, amount: 40 }, [201, 202]);
    const mine = () => receiver.received.filter((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id === sent.body.id);
    const deadline = Date.now() + 60_000;
    while (mine().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    const events = mine().map((r) => ({ raw: r, body: JSON.parse(r.body) as { event: string; data: { offer: Record<string, unknown> } } }));
    expect(events.map((e) => e.body.event).sort()).toEqual(["transaction.auth", "transaction.auth.qualified"]);
    for (const { raw, body } of events) {
      expect(new Webhook(secrets[body.event]!).verify(raw.body, raw.headers as Record<string, string>)).toEqual(body);
      expect(body.data.offer).toMatchObject({ id: offer.id, cashback: 4, qualified: true });
    }
  });
});
