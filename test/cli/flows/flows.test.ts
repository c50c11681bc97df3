// The flow runner (src/cli/flows, `cardlink run`) against a whole Cardlink on a real port, with nothing but
// accounts' keys (no admin token anywhere): every shipped flow in flows/ passes, four side by side, for two
// accounts at once, each flow in a fresh sandbox deleted after it, while a third account's time and offer
// stay as they were; a failed flow's sandbox is kept and named, --keep keeps them all; --sandbox runs in an
// existing sandbox, and a sandbox's own key in that sandbox; a file that is not a valid flow exits 2,
// quoting what is unknown beside the choices; --junit writes the report; flows/flow.schema.json is the
// schema `run --schema` prints.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFlow, FlowFileError } from "../../../src/cli/flows/parse.ts";
import { runFlows } from "../../../src/cli/flows/run.ts";
import { flowJsonSchema } from "../../../src/cli/flows/schema.ts";
import { expectStatus, type TestAccount } from "../../support/harness.ts";
import { runCli, useServed } from "../../support/served.ts";

const served = useServed();
const SHIPPED = readdirSync("flows").filter((f) => f.endsWith(".yaml")).sort().map((f) => join("flows", f));
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
/** Long enough for every shipped flow, side by side, on a shared machine: the run's outcome is what is awaited. */
const WHOLE_RUN_MS = 600_000;

/** `cardlink run ARGS --url <the server>` as a process: no admin token in its environment (runCli clears it). */
const run = (args: string[]) => runCli(["run", ...args, "--url", served.s.url], {}, WHOLE_RUN_MS);

/** GET with a key, in a sandbox of the key's account when `sandbox` is given. */
async function read<T>(key: string, path: string, sandbox?: string): Promise<T> {
  const headers: Record<string, string> = { "Cardlink-Key": key, ...(sandbox ? { "Cardlink-Sandbox": sandbox } : {}) };
  return expectStatus<T>(await served.s.h.request("GET", path, { headers }), 200);
}

const sandboxesOf = async (account: TestAccount) => (await read<{ items: { id: string; name: string }[] }>(account.keys.test, "/v1/sandboxes")).items;
const programCount = async (key: string, sandbox?: string) => (await read<{ count: number }>(key, "/v1/programs", sandbox)).count;

async function makeSandbox(account: TestAccount, name: string) {
  return expectStatus<{ id: string; keys: { test: string; live: string } }>(await account.as("test").post("/v1/sandboxes", { name }), 201);
}

const FAILING = `name: Expectations that do not hold
steps:
  - id: account
    get: { path: /v1/account }
  - id: program
    program: { name: "Flow: failing \${run}" }
  - id: brand
    brand: { name: "Failing \${run}" }
  - id: location
    location: { programId: "\${program.id}", brandId: "\${brand.id}", address: "9 Flow Street", city: London, postcode: SW1A 1AJ, countryCode: GBR }
  - id: card
    card: { programId: "\${program.id}", number: "4444000000004065", expMonth: 12, expYear: 2030, countryCode: GBR, termsOfUse: true }
  - id: offer
    offer: { brandId: "\${brand.id}", countryCode: GBR, name: 10% off, publisherId: "\${account.id}", startDate: "\${days(-1)}", type: { name: discount, value: 10 } }
  - link: { offerId: "\${offer.id}", locationId: "\${location.id}" }
  - id: purchase
    purchase: { cardId: "\${card.id}", locationId: "\${location.id}", amount: 42 }
    expect:
      body: { offer.qualified: true }
      webhooks:
        - event: transaction.auth.qualified
          count: 2
          within: 1s
  - name: never run
    get: { path: /v1/account }
`;

const scratch = () => mkdtempSync(join(tmpdir(), "cardlink-flows-"));

describe("every shipped flow with nothing but a key", () => {
  it(
    "passes for two accounts at once, four side by side each, every flow in a sandbox deleted after it; a third account's offer ending in three days stays live",
    { timeout: WHOLE_RUN_MS },
    async () => {
      const { h } = served.s;
      const [a, b, c] = [await h.createAccount({ tier: "premium" }), await h.createAccount({ tier: "premium" }), await h.createAccount({ tier: "premium" })];
      // C's live offer ends in three days of the service clock.
      const fixtures = await expectStatus<{ offerId: string }>(await c.as("test").post("/v1/trigger/fixtures"), 200);
      const before = await read<{ now: string; serviceNow: string }>(c.keys.test, "/v1/clock");
      const endDate = `${new Date(Date.parse(before.now) + 3 * 86_400_000).toISOString().slice(0, 10)}T00:00:00`;
      await expectStatus(await c.as("test").patch(`/v1/offers/${fixtures.offerId}`, { endDate }), 200);

      const [ranA, ranB] = await Promise.all([a, b].map((account) => run([...SHIPPED, "--parallel", "4", "--key", account.keys.test])));
      for (const ran of [ranA!, ranB!]) {
        expect(ran.stderr).toBe("");
        const lines = ran.stdout.trim().split("\n");
        expect(lines.slice(0, -1).sort(), ran.stdout).toEqual(SHIPPED.map((f) => expect.stringMatching(new RegExp(`^PASS ${f.replace(".", "\\.")}: `))));
        expect(lines.at(-1)).toBe(`${SHIPPED.length} of ${SHIPPED.length} flows passed (${served.s.url})`);
        expect(ran.status).toBe(0);
      }
      for (const account of [a, b]) {
        // Nothing left behind: no sandbox, and nothing in the account's own environments.
        expect(await sandboxesOf(account)).toEqual([]);
        expect([await programCount(account.keys.test), await programCount(account.keys.live)]).toEqual([0, 0]);
      }

      const after = await read<{ now: string; serviceNow: string }>(c.keys.test, "/v1/clock");
      expect(after).toEqual(before);
      expect(await read<{ status: string }>(c.keys.test, `/v1/offers/${fixtures.offerId}`)).toMatchObject({ status: "live" });
      const purchase = await expectStatus<{ transaction: { offer: { qualified: boolean; id: string } } }>(
        await c.as("test").post("/v1/trigger", { event: "transaction.auth.qualified" }),
        200,
      );
      expect(purchase.transaction.offer).toMatchObject({ qualified: true, id: fixtures.offerId });
    },
  );
});

describe("the sandbox a flow runs in", () => {
  it("keeps a failed flow's sandbox and names it, deletes a passed one's, and says both in the JUnit report", { timeout: WHOLE_RUN_MS }, async () => {
    const account = await served.s.h.createAccount({ tier: "premium" });
    const dir = scratch();
    const failing = join(dir, "failing.yaml");
    writeFileSync(failing, FAILING);
    const junit = join(dir, "report.xml");
    const result = await run(["flows/refund.yaml", failing, "--junit", junit, "--key", account.keys.test]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(1);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^PASS flows\/refund\.yaml: Refunds \(15 steps, [\d.]+ s\)$/);
    expect(lines[1]).toMatch(new RegExp(`^FAIL ${failing}: Expectations that do not hold \\(9 steps`));
    expect(lines[2]).toMatch(
      new RegExp(
        `^  step "purchase" \\(${failing}:16\\): expect\\.webhooks\\[0\\]: 2 × transaction\\.auth\\.qualified within 1s, got 1; ` +
          `arrived since the step: .*transaction\\.auth\\.qualified [0-9a-f-]{36}`,
      ),
    );
    const kept = new RegExp(
      `^  sandbox (${UUID}) \\((failing-[0-9a-f]{6})\\) kept until (\\S+): look inside with the account's key and --sandbox \\1; ` +
        "`npm run cardlink -- sandbox delete \\1` deletes it$",
    ).exec(lines[3]!);
    expect(kept, lines[3]).not.toBeNull();
    const [, id, name, until] = kept!;
    expect(lines.at(-1)).toBe(`1 of 2 flows passed (${served.s.url})`);

    // The failed flow's sandbox alone is left, with what the flow made in it; the account's own environment has nothing.
    expect(await sandboxesOf(account)).toEqual([expect.objectContaining({ id, name, expiresAt: until })]);
    expect(await programCount(account.keys.test, id)).toBe(1);
    expect(await programCount(account.keys.test)).toBe(0);

    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="cardlink flows" tests="24" failures="1" errors="0" skipped="1"/);
    expect(xml).toMatch(
      /<testsuite name="Refunds" file="flows\/refund\.yaml" tests="15" failures="0" errors="0" skipped="0"[^>]*>\n {4}<properties><property name="sandbox" value="[0-9a-f-]{36}"\/><property name="sandbox.after" value="deleted"\/><\/properties>/,
    );
    expect(xml).toContain(`<property name="sandbox" value="${id}"/><property name="sandbox.after" value="kept until ${until}"/>`);
    expect(xml).toMatch(/<testcase classname="[^"]+failing\.yaml" name="purchase" [^>]*><failure message="expect\.webhooks\[0\]: 2 × transaction\.auth\.qualified/);
    expect(xml).toMatch(/name="never run" [^>]*><skipped message="an earlier step failed"\/><\/testcase>/);

    const deleted = await runCli(["sandbox", "delete", id!, "--key", account.keys.test, "--url", served.s.url]);
    expect(deleted).toMatchObject({ status: 0, stderr: "" });
    expect(await sandboxesOf(account)).toEqual([]);
  });

  it("keeps a passed flow's sandbox with --keep", { timeout: WHOLE_RUN_MS }, async () => {
    const account = await served.s.h.createAccount({ tier: "premium" });
    const result = await run(["flows/qualification.yaml", "--keep", "--key", account.keys.test]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^PASS flows\/qualification\.yaml: /);
    const id = new RegExp(`^  sandbox (${UUID}) \\(qualification-[0-9a-f]{6}\\) kept until `).exec(lines[1]!)?.[1];
    expect(id, lines[1]).toBeDefined();
    expect((await sandboxesOf(account)).map((s) => s.id)).toEqual([id]);
    expect(await programCount(account.keys.test, id)).toBe(1);
  });

  it("runs in an existing sandbox with --sandbox and the account's keys, test and live, and leaves it", { timeout: WHOLE_RUN_MS }, async () => {
    const account = await served.s.h.createAccount({ tier: "premium" });
    const sandbox = await makeSandbox(account, "existing");
    const result = await run(["flows/targeting.yaml", "flows/live-sync.yaml", "--sandbox", sandbox.id, "--key", account.keys.test, "--live-key", account.keys.live]);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(/^PASS flows\/targeting\.yaml: /),
      expect.stringMatching(/^PASS flows\/live-sync\.yaml: /),
      `2 of 2 flows passed (${served.s.url})`,
    ]);
    expect(result.status).toBe(0);
    expect((await sandboxesOf(account)).map((s) => s.id)).toEqual([sandbox.id]);
    expect([await programCount(account.keys.test, sandbox.id), await programCount(account.keys.live, sandbox.id)]).toEqual([1, 1]);
    expect([await programCount(account.keys.test), await programCount(account.keys.live)]).toEqual([0, 0]);
    // live-sync moved the sandbox's time 15 days, and nobody else's.
    const clock = await read<{ now: string; serviceNow: string; sandbox: string }>(account.keys.test, "/v1/clock", sandbox.id);
    expect(clock.sandbox).toBe(sandbox.id);
    expect(Date.parse(clock.now) - Date.parse(clock.serviceNow)).toBe(15 * 86_400_000);
    const own = await read<{ now: string; serviceNow: string }>(account.keys.test, "/v1/clock");
    expect(own.now).toBe(own.serviceNow);
  });

  it("runs in the sandbox whose own key is given, making none", { timeout: WHOLE_RUN_MS }, async () => {
    const account = await served.s.h.createAccount({ tier: "premium" });
    const sandbox = await makeSandbox(account, "given-key");
    const result = await run(["flows/return-period.yaml", "--key", sandbox.keys.test]);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim().split("\n")).toEqual([expect.stringMatching(/^PASS flows\/return-period\.yaml: /), `1 of 1 flows passed (${served.s.url})`]);
    expect(result.status).toBe(0);
    expect((await sandboxesOf(account)).map((s) => s.id)).toEqual([sandbox.id]);
    expect(await programCount(sandbox.keys.test)).toBe(1);
    const clock = await read<{ now: string; serviceNow: string }>(sandbox.keys.test, "/v1/clock");
    expect(Date.parse(clock.now) - Date.parse(clock.serviceNow)).toBe(15 * 86_400_000);
  });

  it("fails a flow whose sandbox cannot be made with the API's answer, its steps skipped", { timeout: WHOLE_RUN_MS }, async () => {
    const { h } = served.s;
    const account = await h.createAccount();
    for (let i = 0; i < h.config.SANDBOXES_PER_ACCOUNT; i++) await makeSandbox(account, `filler-${i}`);
    const junit = join(scratch(), "report.xml");
    const result = await run(["flows/refund.yaml", "--key", account.keys.test, "--junit", junit]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(1);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^FAIL flows\/refund\.yaml: Refunds \(15 steps, /);
    expect(lines[1]).toMatch(/^ {2}could not make the flow's sandbox: POST \/v1\/sandboxes answered 409 conflict: .*\S/);
    expect(lines.at(-1)).toBe(`0 of 1 flows passed (${served.s.url})`);
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/<testsuite name="Refunds" [^>]*tests="16" failures="0" errors="1" skipped="15"/);
    expect(xml).toMatch(/<testcase classname="flows\/refund\.yaml" name="sandbox" [^>]*><error message="could not make the flow&apos;s sandbox: POST \/v1\/sandboxes answered 409/);
    expect(xml).toContain(`<skipped message="the flow&apos;s sandbox could not be made"/>`);
  });
});

describe("a file that is not a valid flow", () => {
  const bad = (text: string) => {
    try {
      parseFlow("bad.yaml", text);
    } catch (err) {
      if (err instanceof FlowFileError) return err.message;
      throw err;
    }
    throw new Error("parsed");
  };
  const BUILTINS = "the builtins are ${run}, ${now}, ${today} and ${days(N)}";

  it("is refused in one line naming the file, the line and the field, quoting what is unknown beside the choices", () => {
    expect(bad("name: x\nsteps:\n  - program: {}\n  - buy: { amount: 1 }\n")).toBe(
      'bad.yaml:4: steps[1]: unknown action "buy"; the actions are ' +
        "program, brand, brand-consent, location, card, offer, update-offer, link, activate, hook, purchase, increment, clear, void, expire, refund, missing-transaction-request, sync, advance-clock, get",
    );
    expect(bad("name: x\nsteps:\n  - name: nothing\n")).toMatch(/^bad\.yaml:3: steps\[0\]: no action; the actions are program, brand, /);
    expect(bad("name: x\nsteps:\n  - id: p\n    program: {}\n  - refund: { amount: 1 }\n")).toBe("bad.yaml:5: steps[1].refund.transactionId: required");
    expect(bad("name: x\nsteps:\n  - id: p\n    program: {}\n  - refund: { transactionId: \"${purchase.id}\" }\n")).toBe(
      `bad.yaml:5: steps[1].refund.transactionId: unknown reference "\${purchase.id}": no step before this one has id "purchase"; the ids of the steps before it are p, and ${BUILTINS}`,
    );
    expect(bad("name: x\nsteps:\n  - refund: { transactionId: \"${purchase.id}\" }\n")).toBe(
      `bad.yaml:3: steps[0].refund.transactionId: unknown reference "\${purchase.id}": no step before this one has id "purchase"; no step before it has an id, and ${BUILTINS}`,
    );
    expect(bad("name: x\nsteps:\n  - get: { path: /v1/account }\n    expect:\n      webhooks:\n        - event: card.created\n")).toMatch(
      /^bad\.yaml:6: steps\[0\]\.expect\.webhooks\[0\]\.event: unknown event "card\.created"; the events are transaction\.auth, transaction\.clearing, .*, location\.status, .*, offer\.extended, hook\.disabled, brand\.consent, .*, marketplace\.offer\.updated$/,
    );
    expect(bad("name: x\nenvironment: staging\nsteps:\n  - get: { path: /v1/account }\n")).toBe('bad.yaml:2: environment: unknown environment "staging"; the environments are test, live');
    expect(bad("name: x\nsteps:\n  - get: { path: /v1/account }\n    expect: { stauts: 200 }\n")).toBe("bad.yaml:4: steps[0].expect: unknown field stauts");
    expect(bad("name: x\nsteps:\n  - get: { path: \"/v1/offers?from=${days}\" }\n")).toBe(`bad.yaml:3: steps[0].get.path: unknown reference "\${days}"; ${BUILTINS}`);
    expect(bad("steps: []\n")).toBe("bad.yaml:1: name: required");
    expect(bad("name: x\nsteps: [\n")).toMatch(/^bad\.yaml:\d+: not YAML: /);
  });

  it("exits 2, not the 1 of a failed expectation, one line each on stderr, before anything runs", async () => {
    const account = await served.s.h.createAccount();
    const dir = scratch();
    const unknownAction = join(dir, "action.yaml");
    writeFileSync(unknownAction, "name: x\nsteps:\n  - purchse: { amount: 1 }\n");
    const unknownEvent = join(dir, "event.yaml");
    writeFileSync(unknownEvent, "name: x\nsteps:\n  - get: { path: /v1/account }\n    expect:\n      webhooks:\n        - event: transaction.qualified\n");
    const result = await run(["flows/refund.yaml", unknownAction, unknownEvent, "flows/nope.yaml", "--key", account.keys.test]);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^${unknownAction}:3: steps\\[0\\]: unknown action "purchse"; the actions are program, `)),
      expect.stringMatching(new RegExp(`^${unknownEvent}:6: steps\\[0\\]\\.expect\\.webhooks\\[0\\]\\.event: unknown event "transaction\\.qualified"; the events are `)),
      "flows/nope.yaml: no such file",
      "",
    ]);
    expect(result.status).toBe(2);
    expect(await sandboxesOf(account)).toEqual([]);
  });
});

describe("cardlink run", () => {
  it("names the step, the field, what was expected and what came for a body expectation", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const flow = parseFlow("inline.yaml", FAILING.replace("body: { offer.qualified: true }", "body: { offer.qualified: true, offer.cashback: { $gt: 10 } }"));
    const [result] = await runFlows([flow], { url: s.url, target: { keys: account.keys }, serviceName: s.h.config.SERVICE_NAME });
    expect(result!.ok).toBe(false);
    expect(result!.steps.find((st) => st.status === "failed")).toMatchObject({
      label: "purchase",
      failure: expect.stringMatching(/^expect\.body: offer\.cashback: expected \$gt 10, got 4\.2 \(POST \/v1\/transactions\/test answered 201: \{/),
    });
    expect(result!.sandbox).toMatchObject({ outcome: "kept" });
  });

  it("names the status an error answered with, even when the step's expectations refer to its own answer", async () => {
    const { s } = served;
    const account = await s.h.createAccount();
    const unknown = "00000000-0000-4000-8000-000000000000";
    const flow = parseFlow(
      "inline.yaml",
      `name: A clearing of nothing
steps:
  - id: first
    clear: { transactionId: "${unknown}", amount: 60 }
    expect:
      status: 201
      webhooks:
        - event: transaction.clearing
          fields: { data.id: "\${first.id}" }
`,
    );
    const [result] = await runFlows([flow], { url: s.url, target: { keys: account.keys }, serviceName: s.h.config.SERVICE_NAME });
    expect(result!.steps).toEqual([
      expect.objectContaining({
        label: "first",
        status: "failed",
        failure: expect.stringMatching(new RegExp(`^expected status 201: POST /v1/transactions/${unknown}/clear answered 404: \\{`)),
      }),
    ]);
  });

  it("prints the JSON Schema with --schema, the one committed as flows/flow.schema.json", async () => {
    const printed = await runCli(["run", "--schema"]);
    expect(printed.status).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(flowJsonSchema());
    // Regenerate with: npm run --silent cardlink -- run --schema > flows/flow.schema.json
    expect(JSON.parse(readFileSync("flows/flow.schema.json", "utf8"))).toEqual(flowJsonSchema());
  });
});
