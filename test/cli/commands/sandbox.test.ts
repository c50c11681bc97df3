// `cardlink sandbox create|list|delete` as a process against a running Cardlink, with an account's key:
// create prints the sandbox's keys once (or the whole answer with --json) and they work; its clock starts
// where --at and --frozen say; list shows it; delete removes it and its keys answer 401 at once. A sandbox's
// key is refused in the API's words; a usage mistake is one line, exit 64.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus } from "../../support/harness.ts";
import { runCli, useServed } from "../../support/served.ts";

const served = useServed();
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

const cli = (args: string[]) => runCli([...args, "--url", served.s.url]);
const get = (key: string, path: string) => served.s.h.request("GET", path, { headers: { "Cardlink-Key": key } });

describe("cardlink sandbox", () => {
  it("creates a sandbox whose keys it prints once, lists it, and deletes it: its keys answer 401 at once", async () => {
    const account = await served.s.h.createAccount();
    const created = await cli(["sandbox", "create", "--name", "ci-1", "--key", account.keys.test]);
    expect(created.stderr).toBe("");
    expect(created.status).toBe(0);
    const lines = created.stdout.trim().split("\n");
    const id = new RegExp(`^sandbox (${UUID}) ci-1, expires \\S+$`).exec(lines[0]!)?.[1];
    expect(id, created.stdout).toBeDefined();
    expect(lines[1]).toMatch(/^clock: \S+ \(following the service clock\)$/);
    const test = /^test key \(shown once\): (sk_test_\w+)$/.exec(lines[2]!)?.[1];
    const live = /^live key \(shown once\): (sk_live_\w+)$/.exec(lines[3]!)?.[1];
    expect([test, live]).toEqual([expect.any(String), expect.any(String)]);
    expect(await expectStatus(await get(test!, "/v1/clock"), 200)).toMatchObject({ sandbox: id });
    expect(await expectStatus(await get(live!, "/v1/programs"), 200)).toMatchObject({ count: 0 });

    const listed = await cli(["sandbox", "list", "--key", account.keys.test]);
    expect(listed).toMatchObject({ status: 0, stderr: "" });
    expect(listed.stdout).toMatch(new RegExp(`^${id} ci-1 clock \\S+ \\(following the service clock\\), expires \\S+\\n$`));

    const deleted = await cli(["sandbox", "delete", id!, "--key", account.keys.test]);
    expect(deleted).toMatchObject({ status: 0, stderr: "", stdout: `deleted sandbox ${id}: its records are gone, and its keys answer 401 from now on\n` });
    await expectError(await get(test!, "/v1/clock"), 401, "unauthorized");
    expect(await cli(["sandbox", "list", "--key", account.keys.test])).toMatchObject({ status: 0, stdout: "" });
  });

  it("prints the whole answer as JSON with --json: a frozen clock at --at, the expiry of --expires-in", async () => {
    const account = await served.s.h.createAccount();
    const created = await cli(["sandbox", "create", "--frozen", "--at", "2027-03-01T09:00:00Z", "--expires-in", "3600", "--json", "--key", account.keys.live]);
    expect(created).toMatchObject({ status: 0, stderr: "" });
    const sandbox = JSON.parse(created.stdout) as { id: string; name: string; clock: { now: string; frozen: boolean }; expiresAt: string; created: string; keys: { test: string } };
    expect(sandbox).toMatchObject({ name: expect.stringMatching(/^sandbox-[0-9a-f]{6}$/), clock: { now: "2027-03-01T09:00:00.000Z", frozen: true } });
    expect(Date.parse(sandbox.expiresAt) - Date.parse(sandbox.created)).toBe(3_600_000);
    expect(await expectStatus(await get(sandbox.keys.test, "/v1/clock"), 200)).toMatchObject({ now: "2027-03-01T09:00:00.000Z", frozen: true });

    const listed = await cli(["sandbox", "list", "--json", "--key", account.keys.test]);
    expect(JSON.parse(listed.stdout)).toEqual([{ id: sandbox.id, name: sandbox.name, clock: sandbox.clock, expiresAt: sandbox.expiresAt, created: sandbox.created }]);
    expect((await cli(["sandbox", "list", "--key", account.keys.test])).stdout).toContain("(frozen: it moves only when advanced)");
  });

  it("answers in the API's words when refused, and refuses a usage mistake in one line, exit 64", async () => {
    const account = await served.s.h.createAccount();
    const sandbox = await expectStatus<{ id: string; keys: { test: string } }>(await account.as("test").post("/v1/sandboxes", { name: "taken" }), 201);
    expect(await cli(["sandbox", "create", "--key", sandbox.keys.test])).toMatchObject({
      status: 1,
      stdout: "",
      stderr: "403 forbidden: A sandbox's key cannot manage sandboxes: use the key of the account that owns it.\n",
    });
    const taken = await cli(["sandbox", "create", "--name", "taken", "--key", account.keys.test]);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/^409 conflict: .*taken.*\n$/);
    for (const [args, message] of [
      [["sandbox"], "sandbox: the subcommand is create, list or delete (cardlink help sandbox shows its usage)"],
      [["sandbox", "delete"], "sandbox delete: name the sandbox's id (UUID), as `sandbox list` prints it"],
      [["sandbox", "delete", "nope"], "sandbox delete: name the sandbox's id (UUID), as `sandbox list` prints it"],
      [["sandbox", "list", "extra"], "sandbox list: takes no argument extra"],
      [["sandbox", "create", "--at", "tomorrow"], "--at: must be an instant such as 2026-03-01T09:00:00Z"],
      [["sandbox", "create", "--expires-in", "10"], "--expires-in: must be a whole number from 60 to 2592000"],
    ] as const) {
      const r = await cli([...args, "--key", account.keys.test]);
      expect(r, args.join(" ")).toMatchObject({ status: 64, stdout: "", stderr: `${message}\n` });
    }
  });
});
