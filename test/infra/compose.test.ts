// Checks docker-compose.yml and the Dockerfile without a Docker engine: every service is there, health
// checks and depends_on conditions bring the system up in order, each Cardlink role is wired to the
// servers; and compose-go, the loader Docker Compose v2 uses, validates the file against the Compose Specification.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const composeText = readFileSync(`${root}docker-compose.yml`, "utf8");

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, unknown>;
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: unknown };
  ports?: unknown[];
  labels?: Record<string, string>;
};
type Compose = { services?: Record<string, Service> };

const infrastructure = {
  postgres: /^postgres:16(\.|$)/,
  "simulator-postgres": /^postgres:16(\.|$)/,
  kafka: /^apache\/kafka:3\.9\.\d+$/,
  "schema-registry": /^confluentinc\/cp-schema-registry:/,
  mailpit: /^axllent\/mailpit:v1\.\d+\.\d+$/,
};
const roles: Record<string, string[]> = {
  migrate: ["migrate"],
  api: ["api"],
  qualifier: ["qualifier"],
  workers: ["workers"],
  dispatcher: ["dispatcher"],
  "simulator-visa": ["simulator", "--scheme", "visa"],
  "simulator-mastercard": ["simulator", "--scheme", "mastercard"],
  "simulator-amex": ["simulator", "--scheme", "amex"],
};
const roleEnv = ["DATABASE_URL", "KAFKA_BROKERS", "SCHEMA_REGISTRY_URL", "ADMIN_TOKEN", "HOST", "WEBHOOK_TARGETS"];
// The simulators have a database of their own and never the service's.
const isSimulator = (name: string) => name.startsWith("simulator-");
const simulatorEnv = ["SIMULATOR_DATABASE_URL", "KAFKA_BROKERS", "SCHEMA_REGISTRY_URL", "HOST"];
const conditions = new Set(["service_started", "service_healthy", "service_completed_successfully"]);

/** Everything wrong with a parsed compose document; empty when it is fit to `docker compose up`. */
function composeProblems(doc: Compose): string[] {
  const problems: string[] = [];
  const services = doc.services ?? {};
  for (const [name, image] of Object.entries(infrastructure)) {
    const s = services[name];
    if (!s) { problems.push(`${name}: missing`); continue; }
    if (!s.image || !image.test(s.image)) problems.push(`${name}: image ${s.image} does not match ${image}`);
    if (!s.healthcheck?.test) problems.push(`${name}: no healthcheck`);
  }
  for (const [name, command] of Object.entries(roles)) {
    const s = services[name];
    if (!s) { problems.push(`${name}: missing`); continue; }
    if (!s.build) problems.push(`${name}: not built from the Dockerfile`);
    if (JSON.stringify(s.command) !== JSON.stringify(command)) problems.push(`${name}: command ${JSON.stringify(s.command)}`);
    for (const v of isSimulator(name) ? simulatorEnv : roleEnv) if (!s.environment?.[v]) problems.push(`${name}: ${v} not set`);
    if (isSimulator(name) && s.environment?.DATABASE_URL) problems.push(`${name}: has the service's DATABASE_URL`);
  }
  if (!services.api?.environment?.PORT) problems.push("api: PORT not set");
  // The workers mail the exports to Mailpit, whose web page is published for the README's link.
  if (!/^\$\{SMTP_URL:-smtp:\/\/mailpit:1025\}$/.test(String(services.workers?.environment?.SMTP_URL))) problems.push("workers: SMTP_URL does not lead to mailpit:1025");
  if (!JSON.stringify(services.mailpit?.ports ?? []).includes(":8025")) problems.push("mailpit: web page 8025 not published");
  if (!services.api?.healthcheck?.test) problems.push("api: no healthcheck");
  // Every long-running role is checked on its readiness (the api on PORT, the others on HEALTH_PORT).
  for (const name of Object.keys(roles).filter((r) => r !== "migrate")) {
    const test = JSON.stringify(services[name]?.healthcheck?.test ?? "");
    if (!test.includes("/health/ready")) problems.push(`${name}: no /health/ready healthcheck`);
    if (name !== "api" && !services[name]?.environment?.HEALTH_PORT) problems.push(`${name}: HEALTH_PORT not set`);
    // ... and scraped for its metrics on that port (docs/operations.md#metrics).
    const labels = services[name]?.labels ?? {};
    const port = String(services[name]?.environment?.HEALTH_PORT);
    if (labels["prometheus.io/scrape"] !== "true" || labels["prometheus.io/port"] !== port || labels["prometheus.io/path"] !== "/metrics") {
      problems.push(`${name}: no scrape labels for /metrics on HEALTH_PORT`);
    }
  }

  for (const [name, s] of Object.entries(services)) {
    for (const [dep, { condition } = {}] of Object.entries(s.depends_on ?? {})) {
      const target = services[dep];
      if (!target) { problems.push(`${name}: depends on unknown service ${dep}`); continue; }
      if (!condition || !conditions.has(condition)) problems.push(`${name} -> ${dep}: condition ${condition}`);
      if (condition === "service_healthy" && !target.healthcheck?.test) problems.push(`${name} -> ${dep}: waits for a health check ${dep} lacks`);
    }
  }
  // Each role must (transitively) wait for every server it uses, and the graph must have no cycle.
  const reach = (from: string, seen: string[] = []): Set<string> => {
    if (seen.includes(from)) { problems.push(`dependency cycle: ${[...seen, from].join(" -> ")}`); return new Set(); }
    const out = new Set<string>();
    for (const dep of Object.keys(services[from]?.depends_on ?? {})) {
      out.add(dep);
      for (const d of reach(dep, [...seen, from])) out.add(d);
    }
    return out;
  };
  for (const name of Object.keys(roles)) {
    if (!services[name]) continue;
    const deps = reach(name);
    const needs =
      name === "migrate" ? ["postgres"]
      : isSimulator(name) ? ["simulator-postgres", "kafka", "schema-registry"]
      : ["postgres", "kafka", "schema-registry", "migrate", ...(name === "workers" ? ["mailpit"] : [])];
    for (const n of needs) if (!deps.has(n)) problems.push(`${name}: does not wait for ${n}`);
  }
  if (services.migrate?.depends_on?.postgres?.condition !== "service_healthy") problems.push("migrate: does not wait for a healthy postgres");
  for (const name of Object.keys(roles).filter((r) => r !== "migrate" && !isSimulator(r))) {
    if (services[name] && services[name].depends_on?.migrate?.condition !== "service_completed_successfully") {
      problems.push(`${name}: does not wait for migrations to finish`);
    }
  }
  return [...new Set(problems)];
}

const load = (): Compose => parse(composeText, { merge: true }) as Compose;

describe("docker-compose.yml", () => {
  it("has the servers and every Cardlink role, wired and ordered by health checks", () => {
    expect(composeProblems(load())).toEqual([]);
  });

  it("reports a missing health check, an unknown dependency, a cycle and a role without its servers", () => {
    const doc = load();
    const services = doc.services!;
    delete services.kafka!.healthcheck;
    services.qualifier!.depends_on = { ...services.qualifier!.depends_on, ghost: { condition: "service_started" } };
    services.postgres!.depends_on = { api: { condition: "service_healthy" } };
    delete services.dispatcher!.environment!.KAFKA_BROKERS;
    services.workers!.labels = { "prometheus.io/scrape": "false" };
    services["simulator-amex"]!.environment = { ...services["simulator-amex"]!.environment, DATABASE_URL: "postgres://cardlink@postgres/cardlink" };
    delete services.workers!.depends_on!.mailpit;
    const problems = composeProblems(doc);
    expect(problems).toContain("kafka: no healthcheck");
    expect(problems).toContain("qualifier: depends on unknown service ghost");
    expect(problems.some((p) => p.startsWith("dependency cycle:"))).toBe(true);
    expect(problems).toContain("dispatcher: KAFKA_BROKERS not set");
    expect(problems).toContain("simulator-amex: has the service's DATABASE_URL");
    expect(problems).toContain("workers: no scrape labels for /metrics on HEALTH_PORT");
    expect(problems).toContain("api -> kafka: waits for a health check kafka lacks");
    expect(problems).toContain("workers: does not wait for mailpit");
  });

  // scripts/compose-check is compose-go (what Docker Compose v2 loads files with), built here with the Go
  // toolchain; no Docker engine or compose plugin is needed.
  const composeCheck = (file: string) => {
    const bin = join(tmpdir(), "cardlink-compose-check");
    const build = spawnSync("go", ["build", "-o", bin, "."], { cwd: `${root}scripts/compose-check`, encoding: "utf8" });
    expect(build.status, build.stderr).toBe(0);
    return spawnSync(bin, [file], { cwd: root, encoding: "utf8" });
  };

  it("loads with compose-go, as `docker compose config` does", () => {
    const result = composeCheck("docker-compose.yml");
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  }, 300_000);

  it("passes `docker compose config` where the Compose plugin is installed, and compose-go where it is not", () => {
    // No Docker engine is needed: `config` only loads, interpolates and validates the file.
    const plugin = spawnSync("docker", ["compose", "version"], { encoding: "utf8" });
    const result = plugin.status === 0 ? spawnSync("docker", ["compose", "-f", "docker-compose.yml", "config", "--quiet"], { cwd: root, encoding: "utf8" }) : composeCheck("docker-compose.yml");
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  }, 300_000);

  it("compose-go refuses a file the schema refuses", () => {
    const dir = mkdtempSync(join(tmpdir(), "cardlink-compose-"));
    const file = join(dir, "docker-compose.yml");
    writeFileSync(file, composeText.replace("condition: service_healthy", "condition: service_happy"));
    const result = composeCheck(file);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/depends_on\.\w+\.condition value must be one of/);
  }, 300_000);
});

describe("Dockerfile", () => {
  const dockerfile = readFileSync(`${root}Dockerfile`, "utf8");
  const dockerignore = readFileSync(`${root}.dockerignore`, "utf8").split("\n").map((l) => l.trim());

  it("builds in one stage and runs the compiled CLI in a node:20-slim stage of its own (test/infra/image.test.ts runs them)", () => {
    expect(dockerfile).toMatch(/^FROM node:20-slim AS build$/m);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", ?"bin\/cardlink\.mjs"\]$/m);
    // package-lock.json must reach the build stage for npm ci, node_modules and dist must not; the build script must.
    expect(dockerignore).toContain("node_modules");
    expect(dockerignore).toContain("dist");
    expect(dockerignore).toContain("!scripts/build.mjs");
    expect(dockerignore).not.toContain("package-lock.json");
    expect(dockerignore).not.toContain("src");
  });

  it("is the image of every Cardlink role in docker-compose.yml", () => {
    const services = load().services ?? {};
    for (const name of Object.keys(roles)) {
      expect(services[name]?.build, name).toBe(".");
      expect(services[name]?.image, name).toBe("cardlink:local");
    }
  });
});
