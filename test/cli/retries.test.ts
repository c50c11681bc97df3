// The CLI against a Cardlink whose rate limit is one request in five seconds (a burst of three): `cardlink run`
// sends again what was answered 429, after its Retry-After, through its sandbox's making and deletion and
// each step's request, so a flow that asks faster than the budget passes; a step that expects the 429
// gets it at once.
import { describe, expect, it } from "vitest";
import { parseFlow } from "../../src/cli/flows/parse.ts";
import { runFlows } from "../../src/cli/flows/run.ts";
import { expectStatus } from "../support/harness.ts";
import { useServed } from "../support/served.ts";

const served = useServed({ env: { RATE_LIMIT_PER_SECOND: "0.2", RATE_LIMIT_BURST: "3" } });
/** Long enough for a few requests at one in five seconds on a shared machine: the run's outcome is what is awaited. */
const RUN_MS = 120_000;

const gets = (n: number) => Array.from({ length: n }, (_, i) => `  - id: read${i}\n    get: { path: /v1/account }`).join("\n");

describe("requests answered 429", () => {
  it("are sent again after their Retry-After, so a flow faster than the budget passes in a sandbox made and deleted", { timeout: RUN_MS }, async () => {
    const account = await served.s.h.createAccount();
    const flow = parseFlow("inline.yaml", `name: Faster than the budget\nsteps:\n${gets(3)}\n`);
    const [result] = await runFlows([flow], { url: served.s.url, target: { keys: account.keys }, serviceName: served.s.h.config.SERVICE_NAME });
    expect(result!.steps.map((s) => s.status)).toEqual(Array(3).fill("passed"));
    expect(result!.sandbox).toMatchObject({ outcome: "deleted" });
    expect(result!.ok).toBe(true);
    // Five requests (the sandbox, three steps, its deletion) on a budget of three: two waited for a token.
    expect(result!.seconds).toBeGreaterThan(4);
  });

  it("are taken at once by a step that expects 429", { timeout: RUN_MS }, async () => {
    const account = await served.s.h.createAccount();
    const sandbox = await expectStatus<{ keys: { test: string } }>(await account.as("test").post("/v1/sandboxes", { name: "expects-429" }), 201);
    const flow = parseFlow(
      "inline.yaml",
      `name: The budget spent\nsteps:\n${gets(2)}\n  - id: refused\n    get: { path: /v1/account }\n    expect: { status: 429 }\n`,
    );
    // Making the sandbox took one of the three; its own key runs in it, with no request besides the steps'.
    const [result] = await runFlows([flow], { url: served.s.url, target: { keys: { test: sandbox.keys.test } }, serviceName: served.s.h.config.SERVICE_NAME });
    expect(result!.steps.map((s) => s.status)).toEqual(["passed", "passed", "passed"]);
  });
});
