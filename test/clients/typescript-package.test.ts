// The TypeScript client as a package of its own: `npm pack` in clients/typescript (which compiles dist/ with
// declarations), the tarball installed in an empty project; there a file importing it type-checks and one
// misusing it does not, and the README's example, as written, compiles and runs against a Cardlink,
// printing the webhook it verified.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createWebApp } from "../../src/app/http.ts";
import { ADMIN_TOKEN } from "../support/harness.ts";
import { usePipeline } from "../support/pipeline.ts";
import { ROOT, cleanEnv, run, succeed } from "../support/pack.ts";
import { freePort } from "../support/server-process.ts";

const CLIENT = join(ROOT, "clients/typescript");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const readme = readFileSync(join(CLIENT, "README.md"), "utf8");
const examples = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

const pipeline = usePipeline(["simulators", "qualifier", "dispatcher", "workers"]);
let server: ServerType;
let work: string;
let project: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cardlink-client-package-"));
  await succeed(run("npm", ["pack", "--pack-destination", work], { cwd: CLIENT }), "npm pack (clients/typescript)");
  const tarball = readdirSync(work).find((f) => /^cardlink-client-\d+\.\d+\.\d+\.tgz$/.test(f));
  expect(tarball).toBeDefined();
  project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "integrator", private: true, type: "module" }));
  await succeed(run("npm", ["install", join(work, tarball!), "--no-audit", "--no-fund"], { cwd: project }), "npm install");
  // The integrator's own settings: Node types (this checkout's @types/node) and strict checks.
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, outDir: "out", types: ["node"], typeRoots: [join(ROOT, "node_modules/@types")] },
      include: ["*.ts"],
    }),
  );
}, 300_000);

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

it("installs as JavaScript with declarations", () => {
  const installed = join(project, "node_modules/@cardlink/client");
  const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { main: string; types: string };
  expect(readFileSync(join(installed, manifest.main), "utf8")).toContain("export function verifyWebhook");
  expect(readFileSync(join(installed, manifest.types), "utf8")).toContain("export declare function verifyWebhook");
});

it("type-checks a file that uses it and refuses one that misuses it", async () => {
  writeFileSync(
    join(project, "misuse.ts"),
    [
      'import { createCardlinkClient } from "@cardlink/client";',
      'const cardlink = createCardlinkClient({ baseUrl: "http://localhost:3000", key: "sk_test_x" });',
      "// @ts-expect-error: no such path",
      'await cardlink.GET("/v1/no-such-path");',
      "// @ts-expect-error: a program's name is required",
      'await cardlink.POST("/v1/programs", { body: {} });',
      "",
    ].join("\n"),
  );
  writeFileSync(join(project, "example.ts"), examples[0]!);
  const checked = await run(process.execPath, [TSC, "-p", project, "--noEmit"], { cwd: project });
  expect(checked.output).toBe("");
  expect(checked.status).toBe(0);

  // Without the @ts-expect-error lines, both calls are errors: the types are the API's, not `any`.
  writeFileSync(join(project, "misuse.ts"), readFileSync(join(project, "misuse.ts"), "utf8").replace(/^\/\/ @ts-expect-error.*\n/gm, ""));
  const refused = await run(process.execPath, [TSC, "-p", project, "--noEmit"], { cwd: project });
  expect(refused.status).toBe(2);
  expect(refused.output.match(/misuse\.ts\(\d+,\d+\): error TS/g)).toHaveLength(2);
  rmSync(join(project, "misuse.ts"));
}, 120_000);

it("runs the README's example as written against a Cardlink: a hook, a qualifying test purchase, the webhook verified", async () => {
  expect(examples).toHaveLength(1);
  writeFileSync(join(project, "example.ts"), examples[0]!);
  await succeed(run(process.execPath, [TSC, "-p", project], { cwd: project }), "tsc");
  const app = createWebApp(pipeline.h.services, { adminToken: ADMIN_TOKEN });
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => resolve(info.port));
  });
  const { keys } = await pipeline.h.createAccount();
  const env = cleanEnv({ CARDLINK_URL: `http://127.0.0.1:${port}`, CARDLINK_KEY: keys.test, PORT: String(await freePort()) });
  const output = await succeed(run(process.execPath, ["out/example.js"], { cwd: project, env, timeoutMs: 120_000 }), "node out/example.js");
  expect(output).toMatch(/^verified transaction\.auth\.qualified: cashback 4\.2 GBP$/m);
  expect(output).toMatch(/^purchase 42 GBP, qualified for offer [0-9a-f-]{36}: cashback 4\.2 GBP, performance fee 0\.42 GBP$/m);
}, 180_000);
