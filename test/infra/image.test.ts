// The image, built and started as the Dockerfile states it, without a Docker engine: each stage's COPY,
// WORKDIR, ENV and RUN lines run in a temporary folder standing for the stage's filesystem
// (test/support/dockerfile.ts), then the runtime stage's ENTRYPOINT and CMD start there and its
// HEALTHCHECK command is run against them.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildImage, parseDockerfile, stagesOf, type StageResult } from "../support/dockerfile.ts";
import { ROOT, background, cleanEnv, repositoryFiles, run, type Background } from "../support/pack.ts";
import { freePort } from "../support/server-process.ts";

const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const stages = stagesOf(parseDockerfile(dockerfile));
let work: string;
let built: StageResult[];
let runtime: StageResult;
let server: Background | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cardlink-image-"));
  built = await buildImage(stages, ROOT, repositoryFiles(), work);
  runtime = built.at(-1)!;
}, 900_000);

afterAll(() => {
  server?.stop();
  rmSync(work, { recursive: true, force: true });
});

const inRuntime = (path: string) => join(runtime.root, runtime.workdir, path);

it("is a build stage, then a slim runtime stage that runs the compiled CLI as the node user", () => {
  expect(stages.map((s) => s.base)).toEqual(["node:20-slim", "node:20-slim"]);
  expect(stages[0]!.name).toBe("build");
  expect(runtime.user).toBe("node");
  expect(runtime.env.HOST).toBe("0.0.0.0");
  expect(runtime.env.NODE_ENV).toBe("production");
  expect(runtime.entrypoint).toEqual(["node", "bin/cardlink.mjs"]);
  expect(runtime.healthcheck?.join(" ")).toMatch(/\/health\b/);
  // The runtime stage compiles nothing and installs nothing: it only copies from the build stage.
  expect(runtime.runs).toEqual([]);
  expect(dockerfile).not.toMatch(/\btsx\b.*src\/main\.ts/);
});

it("holds the compiled code and the runtime dependencies only, with the patched kafkajs and postgres", () => {
  expect(existsSync(inRuntime("dist/src/main.js"))).toBe(true);
  expect(existsSync(inRuntime("dist/src/platform/migrations"))).toBe(true);
  expect(existsSync(inRuntime("src"))).toBe(false);
  expect(existsSync(inRuntime("test"))).toBe(false);
  for (const dev of ["tsx", "typescript", "vitest", "eslint", "patch-package", "swagger-ui-dist", "@scarf/scarf", "playwright-core"]) {
    expect(existsSync(inRuntime(`node_modules/${dev}`)), dev).toBe(false);
  }
  for (const runtimeDependency of ["hono", "@electric-sql/pglite", "@faker-js/faker", "kafkajs", "postgres"]) {
    expect(existsSync(inRuntime(`node_modules/${runtimeDependency}`)), runtimeDependency).toBe(true);
  }
  expect(readFileSync(inRuntime("node_modules/kafkajs/src/consumer/runner.js"), "utf8")).toContain("Patched for Cardlink");
  expect(readFileSync(inRuntime("node_modules/postgres/src/connection.js"), "utf8")).toContain("Cardlink patch");
});

it("starts with its entrypoint and command, and its health check passes once it serves (and fails before)", async () => {
  const port = await freePort();
  // The container's environment, with the port free on this machine and DATA_DIR inside the stage's folder.
  const env = cleanEnv({ ...runtime.env, PORT: String(port), DATA_DIR: join(runtime.root, runtime.env.DATA_DIR ?? "/home/node/data"), LOG_LEVEL: "info" });
  const [healthCommand, ...healthArgs] = runtime.healthcheck!;
  const health = () => run(healthCommand!, healthArgs, { cwd: inRuntime("."), env, timeoutMs: 30_000 });
  expect((await health()).status).toBe(1);

  const [command, ...args] = [...runtime.entrypoint!, ...runtime.cmd!];
  server = background(command!, args, { cwd: inRuntime("."), env });
  const deadline = Date.now() + 90_000;
  while ((await health()).status !== 0) {
    if (server.child.exitCode !== null) throw new Error(`the image's command exited ${server.child.exitCode}:\n${server.output()}`);
    if (Date.now() > deadline) throw new Error(`the health check did not pass:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const docs = await fetch(`http://127.0.0.1:${port}/docs/assets/swagger-ui-bundle.js`);
  expect(docs.status).toBe(200);
}, 180_000);
