// `cardlink clock [advance …]` as a process against a running Cardlink: it reads the time of the key's
// environment (the service clock for an account's own, a sandbox's own clock), moves a sandbox's time with
// its key or the account's and --sandbox, and nobody else's; an account's own environment is refused in the
// API's words; a usage mistake is one line, exit 64.
import { describe, expect, it } from "vitest";
import { expectStatus } from "../../support/harness.ts";
import { runCli, useServed } from "../../support/served.ts";

const served = useServed();

const cli = (args: string[]) => runCli(["clock", ...args, "--url", served.s.url]);

describe("cardlink clock", () => {
  it("reads an environment's time and moves a sandbox's alone, with its key or the account's and --sandbox", async () => {
    const account = await served.s.h.createAccount();
    const own = await cli(["--json", "--key", account.keys.test]);
    expect(own).toMatchObject({ status: 0, stderr: "" });
    const service = JSON.parse(own.stdout) as { now: string; serviceNow: string; sandbox: string | null };
    expect(service).toMatchObject({ sandbox: null, now: service.serviceNow });
    expect((await cli(["--key", account.keys.test])).stdout).toBe(
      `now ${service.now}\nthe account's own environment: the service clock\nservice time ${service.serviceNow}\n`,
    );

    const sandbox = await expectStatus<{ id: string; keys: { test: string; live: string } }>(
      await account.as("test").post("/v1/sandboxes", { name: "clock", clock: { at: "2027-01-01T00:00:00Z", frozen: true } }),
      201,
    );
    const other = await expectStatus<{ keys: { test: string } }>(await account.as("test").post("/v1/sandboxes", { name: "other" }), 201);
    const otherBefore = (await expectStatus<{ now: string }>(await served.s.h.request("GET", "/v1/clock", { headers: { "Cardlink-Key": other.keys.test } }), 200)).now;

    const moved = await cli(["advance", "--days", "2", "--hours", "3", "--key", sandbox.keys.live]);
    expect(moved).toMatchObject({
      status: 0,
      stderr: "",
      stdout: `now 2027-01-03T03:00:00.000Z\nsandbox ${sandbox.id}: frozen, it moves only when advanced\nservice time ${service.serviceNow}\n`,
    });
    const to = await cli(["advance", "--to", "2027-02-01T00:00:00Z", "--json", "--key", account.keys.test, "--sandbox", sandbox.id]);
    expect(to).toMatchObject({ status: 0, stderr: "" });
    expect(JSON.parse(to.stdout)).toEqual({ now: "2027-02-01T00:00:00.000Z", frozen: true, sandbox: sandbox.id, serviceNow: service.serviceNow });
    expect(JSON.parse((await cli(["--json", "--key", sandbox.keys.test])).stdout)).toMatchObject({ now: "2027-02-01T00:00:00.000Z" });

    // Nobody else's time moved: the other sandbox's, the account's, the service's.
    expect(JSON.parse((await cli(["--json", "--key", other.keys.test])).stdout)).toMatchObject({ now: otherBefore });
    expect(JSON.parse((await cli(["--json", "--key", account.keys.test])).stdout)).toEqual(service);
  });

  it("answers in the API's words when refused, and refuses a usage mistake in one line, exit 64", async () => {
    const account = await served.s.h.createAccount();
    const refused = await cli(["advance", "--days", "1", "--key", account.keys.test]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^403 forbidden: An account's own environments keep the service clock\. .*\n$/);
    const sandbox = await expectStatus<{ id: string }>(await account.as("test").post("/v1/sandboxes", { name: "past", clock: { at: "2027-01-01T00:00:00Z" } }), 201);
    const back = await cli(["advance", "--to", "2026-01-01T00:00:00Z", "--key", account.keys.test, "--sandbox", sandbox.id]);
    expect(back.status).toBe(1);
    expect(back.stderr).toMatch(/^400 invalid_request: .*\n$/);
    for (const [args, message] of [
      [["rewind"], "clock: the subcommand is advance, or none to read the clock (cardlink help clock shows its usage)"],
      [["--days", "1"], "--days: moves the clock with `clock advance`"],
      [["advance"], "clock advance: say how far: --days N, --hours N, --minutes N, --seconds N or --to ISO"],
      [["advance", "--days", "1", "--to", "2027-01-01T00:00:00Z"], "clock advance: --to or --days/--hours/--minutes/--seconds, not both"],
      [["advance", "--days", "soon"], "--days: must be a whole number of at least 1"],
      [["advance", "--to", "2027-01-01"], "--to: must be an instant such as 2026-03-01T09:00:00Z"],
      [["--sandbox", "nope"], "--sandbox: must be a sandbox id (UUID), as `sandbox list` prints it"],
    ] as const) {
      const r = await cli([...args, "--key", account.keys.test]);
      expect(r, args.join(" ")).toMatchObject({ status: 64, stdout: "", stderr: `${message}\n` });
    }
  });
});
