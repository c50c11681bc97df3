// `cardlink keys` against a running service: rotation prints the new key once and the old one answers
// 401 at once; revocation by key id; a missing admin token or a bad account id is a usage error.
import { afterAll, beforeAll, expect, it } from "vitest";
import { spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { createWebApp } from "../../../src/app/http.ts";
import { ADMIN_TOKEN, createHarness, expectError, expectStatus, type Harness } from "../../support/harness.ts";

let h: Harness;
let server: ServerType;
let url: string;
const dataDir = mkdtempSync(join(tmpdir(), "cardlink-cli-keys-"));

beforeAll(async () => {
  h = await createHarness();
  const app = createWebApp(h.services, { adminToken: ADMIN_TOKEN });
  url = await new Promise<string>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => resolve(`http://127.0.0.1:${info.port}`));
  });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string> = { ADMIN_TOKEN }) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["bin/cardlink.mjs", ...args], {
      env: { ...process.env, DATA_DIR: dataDir, ADMIN_TOKEN: "", DATABASE_URL: "", KAFKA_BROKERS: "", SCHEMA_REGISTRY_URL: "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });

it("rotates a key: the new one is printed once and works, the old one answers 401 at once", { timeout: 300_000 }, async () => {
  const acct = await h.createAccount();
  const rotated = await cli(["keys", "rotate", "--account", acct.id, "--env", "test", "--url", url]);
  expect(rotated.stderr).toBe("");
  expect(rotated.status).toBe(0);
  const key = rotated.stdout.match(/^new test key \(shown once\): (sk_test_\w{32})$/m)?.[1];
  expect(key).toBeDefined();
  expect(rotated.stdout).toMatch(new RegExp(`^revoked [0-9a-f-]{36} …${acct.keys.test.slice(-4)}: it answers 401 from now on$`, "m"));
  await expectError(await h.request("GET", "/v1/programs", { headers: { "Cardlink-Key": acct.keys.test } }), 401, "unauthorized");
  await expectStatus(await h.request("GET", "/v1/programs", { headers: { "Cardlink-Key": key! } }), 200);

  const listed = await cli(["keys", "list", "--account", acct.id, "--url", url]);
  const live = listed.stdout.match(/^([0-9a-f-]{36}) live …\w{4} created \S+$/m)?.[1];
  expect(live).toBeDefined();
  const revoked = await cli(["keys", "revoke", "--account", acct.id, "--key-id", live!, "--url", url]);
  expect(revoked.stdout).toMatch(/^revoked .*: it answers 401 from now on$/m);
  await expectError(await h.request("GET", "/v1/programs", { headers: { "Cardlink-Key": acct.keys.live } }), 401, "unauthorized");
});

it("says what is missing: the admin token, the account id, a reachable service", { timeout: 300_000 }, async () => {
  const noToken = await cli(["keys", "list", "--account", "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b", "--url", url], {});
  expect(noToken.status).toBe(64);
  expect(noToken.stderr).toMatch(/^set ADMIN_TOKEN, or run `npm start` once/);
  const badAccount = await cli(["keys", "rotate", "--account", "nope", "--env", "test", "--url", url]);
  expect(badAccount.stderr).toMatch(/^--account: must be an account id \(UUID\)/);
  const unknown = await cli(["keys", "list", "--account", "3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b", "--url", url]);
  expect(unknown.status).toBe(1);
  expect(unknown.stderr).toMatch(/^404 resource_not_found: No account with id/);
  const down = await cli(["trigger", "transaction.auth", "--key", "sk_test_x", "--url", "http://127.0.0.1:9"]);
  expect(down.status).toBe(1);
  expect(down.stderr).toMatch(/^cannot reach Cardlink at http:\/\/127\.0\.0\.1:9 .*is `npm start` running\?/);
});
