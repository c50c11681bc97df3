// The npm package as an integrator gets it: `npm pack`, then `npm install ./cardlink-*.tgz` in an empty
// folder and `npx cardlink` there — start, listen, trigger, run — with no other file of this repository.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { background, cleanEnv, packCardlink, run, succeed, type Background } from "../support/pack.ts";
import { freePort } from "../support/server-process.ts";

let work: string;
let tarball: string;
let app: string;
const running: Background[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cardlink-package-"));
  tarball = await packCardlink(work);
  app = join(work, "app");
  mkdirSync(app);
  copyFileSync(tarball, join(app, basename(tarball)));
  await succeed(run("npm", ["install", `./${basename(tarball)}`, "--no-audit", "--no-fund"], { cwd: app }), "npm install");
}, 600_000);

afterAll(() => {
  for (const p of running) p.stop();
  rmSync(work, { recursive: true, force: true });
});

const installed = (path: string) => join(app, "node_modules", path);

it("packs the compiled code, the bin, the example flows and the patched kafkajs and postgres, and nothing else", async () => {
  const listing = (await succeed(run("tar", ["-tzf", tarball], { cwd: work }), "tar")).split("\n").filter(Boolean);
  const outside = listing.filter((f) => !/^package\/(bin\/|dist\/|flows\/|node_modules\/(kafkajs|postgres)\/|package\.json$|README\.md$)/.test(f));
  expect(outside).toEqual([]);
  expect(listing).toContain("package/dist/src/main.js");
  expect(listing).toContain("package/dist/src/main.js.map");
  expect(listing.some((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toBe(false);
  // The fixes of patches/ travel inside the package: no patch-package and no install script at the integrator's.
  expect(readFileSync(installed("cardlink/node_modules/kafkajs/src/consumer/runner.js"), "utf8")).toContain("Patched for Cardlink");
  expect(readFileSync(installed("cardlink/node_modules/postgres/src/connection.js"), "utf8")).toContain("Cardlink patch");
  const manifest = JSON.parse(readFileSync(installed("cardlink/package.json"), "utf8")) as { scripts?: Record<string, string> };
  expect(Object.keys(manifest.scripts ?? {}).filter((s) => /^(pre|post)?install$/.test(s))).toEqual([]);
  // Only what runs was installed: no compiler, no test tools, no Swagger UI package (nor its telemetry).
  for (const dev of ["tsx", "typescript", "patch-package", "vitest", "eslint", "swagger-ui-dist", "@scarf/scarf", "playwright-core"]) {
    expect(existsSync(installed(dev)), dev).toBe(false);
  }
});

it("answers cardlink help from the installed bin", async () => {
  const help = await succeed(run("npx", ["cardlink", "help"], { cwd: app }), "npx cardlink help");
  expect(help).toMatch(/^Usage: cardlink <command>/);
});

it("starts, listens, triggers a signed webhook and runs a flow from the empty folder", async () => {
  const [port, listenPort] = [await freePort(), await freePort()];
  const env = cleanEnv({ PORT: String(port), DATA_DIR: join(work, "data"), LOG_LEVEL: "warn" });
  const server = background("npx", ["cardlink", "start"], { cwd: app, env });
  running.push(server);
  await server.waitFor(/is running at http:\/\/\S+/);
  const url = `http://127.0.0.1:${port}`;
  // The assets read from files at run time are in the package: Swagger UI's, the dashboard's, the migrations (it started).
  for (const asset of ["/docs/assets/swagger-ui-bundle.js", "/dashboard/assets/dashboard.css", "/dashboard/assets/chart.umd.min.js"]) {
    expect((await fetch(`${url}${asset}`)).status, asset).toBe(200);
  }

  const listener = background("npx", ["cardlink", "listen", "--port", String(listenPort)], { cwd: app, env });
  running.push(listener);
  // The hint names the command as it runs here, installed: npx cardlink, not the checkout's npm run cardlink.
  await listener.waitFor(/^ready: in another terminal, npx cardlink trigger transaction\.auth\.qualified$/m);
  const trigger = await succeed(run("npx", ["cardlink", "trigger", "transaction.auth.qualified"], { cwd: app, env }), "npx cardlink trigger");
  expect(trigger).toMatch(/^transaction\.auth\.qualified [0-9a-f-]{36}$/m);
  expect(trigger).toContain(`delivered: 204 -> http://localhost:${listenPort}/`);
  await listener.waitFor(/^transaction\.auth\.qualified [0-9a-f-]{36} .*qualified/m);

  const flow = await succeed(run("npx", ["cardlink", "run", "node_modules/cardlink/flows/qualification.yaml"], { cwd: app, env }), "npx cardlink run");
  expect(flow).toMatch(/^PASS node_modules\/cardlink\/flows\/qualification\.yaml/m);
}, 300_000);

it("in a checkout, runs the sources when they changed after the last build, and dist/ again once rebuilt", async () => {
  // packCardlink's copy of the repository, built by npm pack's prepare.
  const checkout = join(work, "cardlink-source");
  const help = () => succeed(run(process.execPath, ["bin/cardlink.mjs", "help"], { cwd: checkout }), "cardlink help");
  const compiled = () => readFileSync(join(checkout, "dist/src/cli/index.js"), "utf8");
  expect(await help()).toMatch(/^Usage: cardlink <command>/);
  const cli = join(checkout, "src/cli/index.ts");
  writeFileSync(cli, readFileSync(cli, "utf8").replace("Usage: cardlink <command>", "Usage (changed): cardlink <command>"));
  expect(compiled()).not.toContain("Usage (changed)");
  expect(await help()).toMatch(/^Usage \(changed\): cardlink <command>/);
  await succeed(run("npm", ["run", "build"], { cwd: checkout }), "npm run build");
  expect(compiled()).toContain("Usage (changed)");
  expect(await help()).toMatch(/^Usage \(changed\): cardlink <command>/);
}, 120_000);
