// `cardlink logs` as a process against a running Cardlink: a 400 an integrator's code received is found again
// with `logs list` and `logs show` (the body it sent, card number masked), and `logs tail --status 4xx --json`
// prints the next one as it happens, and nothing of the requests its filter leaves out.
import { describe, expect, it } from "vitest";
import { runCli, startCli, useServed } from "../../support/served.ts";

const served = useServed();

describe("cardlink logs", () => {
  it("finds a 400 again with list and show, and follows the next one with tail --status 4xx --json", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const key = account.keys.test;
    // The integrator's code, over HTTP.
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${s.url}${path}`, {
        method,
        headers: { "Cardlink-Key": key, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const program = (await (await call("POST", "/v1/programs", { name: "Logs" })).json()) as { id: string };
    const card = (number: string) => ({ number, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
    const refused = await call("POST", `/v1/programs/${program.id}/cards`, card("4444000000004009"));
    expect(refused.status).toBe(400);
    const id = refused.headers.get("Request-Id")!;
    await s.h.services.requestLog.flush();
    const connection = ["--key", key, "--url", s.url];

    const listed = await runCli(["logs", "list", "--status", "4xx", ...connection]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^2026-01-05 12:00:00 \\[400\\] POST /v1/programs/${program.id}/cards invalid_request [\\d.]+ ms \\[${id}\\]\\n$`));

    const shown = await runCli(["logs", "show", id, ...connection]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('"number": "************4009"');
    expect(shown.stdout).toContain("number: fails the Luhn check");
    expect(shown.stdout).not.toContain("4444000000004009");
    const missing = await runCli(["logs", "show", "req_0000000000000000", ...connection]);
    expect(missing).toMatchObject({ status: 1, stderr: "404 resource_not_found: No request with id req_0000000000000000.\n" });

    const tail = startCli(["logs", "tail", "--status", "4xx", "--json", ...connection]);
    let exit: number | null = null;
    try {
      await tail.until("following", "stderr");
      expect(tail.stderr()).toContain("following the requests of the test environment");
      await call("GET", `/v1/programs/${program.id}`);
      const next = await call("POST", `/v1/programs/${program.id}/cards`, card("4444 0000 0000 4017"));
      expect(next.status).toBe(400);
      await tail.until("\n");
      const [line, ...more] = tail.stdout().trim().split("\n");
      expect(more).toEqual([]);
      const record = JSON.parse(line!) as { id: string; status: number; request: { body: string } };
      expect(record).toMatchObject({ id: next.headers.get("Request-Id"), status: 400 });
      expect(JSON.parse(record.request.body)).toMatchObject({ number: "**** **** **** 4017" });
    } finally {
      exit = await tail.stop();
    }
    expect(exit).toBe(0);
  });

  it("refuses a filter it cannot send, on one line with exit 64", async () => {
    expect(await runCli(["logs", "tail", "--status", "4x"])).toMatchObject({ status: 64, stderr: "--status: must be a status such as 404 or a class such as 4xx\n" });
    expect(await runCli(["logs", "tail", "--since", "2026-01-05T12:00:00Z"])).toMatchObject({ status: 64, stderr: "--since: only for logs list\n" });
  });
});
