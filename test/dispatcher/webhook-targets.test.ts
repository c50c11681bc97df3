// Rule: a hook delivers only to the addresses WEBHOOK_TARGETS allows: metadata, link-local, unspecified
// and multicast addresses in any spelling are refused in every mode, loopback and private ones under public
// (HOST not loopback), at creation and again at connect time (a name resolving inside is refused); under
// public an attempt's error names what happened, never the internal address and port; a program holds at
// most HOOKS_PER_PROGRAM hooks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookup } from "node:dns";
import pino from "pino";
import { request } from "undici";
import { createHarness, expectError, expectStatus, type Harness, type TestAccount } from "../support/harness.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { freePort } from "../support/server-process.ts";
import { createWebhookClient, describeFailure, type Resolve } from "../../src/dispatcher/http.ts";
import { createDispatcher } from "../../src/dispatcher/dispatcher.ts";
import { enqueueEvent } from "../../src/platform/outbox.ts";
import { HOOKS_PER_PROGRAM } from "../../src/services/webhooks/hooks.ts";

/** The system resolver, except that `rebind.example` answers 127.0.0.1: a name that points inside after the hook was made. */
const rebinding: Resolve = (hostname, options, callback) =>
  hostname === "rebind.example" ? callback(null, [{ address: "127.0.0.1", family: 4 }]) : lookup(hostname, options, callback);

let local: Harness;
let hosted: Harness;
let receiver: Receiver;
beforeAll(async () => {
  [local, hosted, receiver] = await Promise.all([createHarness(), createHarness({ env: { HOST: "0.0.0.0" } }), startReceiver()]);
});
afterAll(async () => {
  await receiver.close();
  await Promise.all([local.close(), hosted.close()]);
});

const programOf = async (acct: TestAccount, env: "test" | "live") =>
  (await expectStatus<{ id: string }>(await acct.as(env).post("/v1/programs", { name: "Targets" }), 201)).id;

describe("hook URLs at creation", () => {
  it("refuses metadata, link-local, 0.0.0.0 and numeric or mapped forms of them in every mode, with a live key too", async () => {
    for (const h of [local, hosted]) {
      const acct = await h.createAccount();
      const programId = await programOf(acct, "live");
      for (const url of [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
        "http://0xA9FEA9FE/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://[fd00:ec2::254]/",
        "http://[fe80::1]/",
        "http://0.0.0.0:3000/",
        "http://224.0.0.1/",
      ]) {
        const message = await expectError(await acct.as("live").post(`/v1/programs/${programId}/hooks`, { event: "location.status", url }), 400, "invalid_request");
        expect(message, url).toMatch(/^url: .*refused in every mode/);
      }
    }
  });

  it("allows loopback and private addresses under local (npm start) and refuses them under public (HOST not loopback)", async () => {
    expect(local.config.WEBHOOK_TARGETS).toBe("local");
    expect(hosted.config.WEBHOOK_TARGETS).toBe("public");
    const mine = await local.createAccount();
    const theirs = await hosted.createAccount();
    const [p1, p2] = [await programOf(mine, "live"), await programOf(theirs, "live")];
    for (const url of ["http://10.0.0.1/", "http://2130706433/", "http://127.0.0.1:3253/", "http://localhost:4000/", "http://[::1]/"]) {
      await expectStatus(await mine.as("live").post(`/v1/programs/${p1}/hooks`, { event: "location.status", url }), 201);
      const message = await expectError(await theirs.as("live").post(`/v1/programs/${p2}/hooks`, { event: "location.status", url }), 400, "invalid_request");
      expect(message, url).toMatch(/^url: .* WEBHOOK_TARGETS=public allows only public addresses/);
    }
    await expectStatus(await theirs.as("live").post(`/v1/programs/${p2}/hooks`, { event: "location.status", url: "https://example.com/wh" }), 201);
  });

  it(`caps a program at ${HOOKS_PER_PROGRAM} hooks`, async () => {
    const acct = await local.createAccount();
    const programId = await programOf(acct, "test");
    for (let i = 0; i < HOOKS_PER_PROGRAM; i++) {
      await expectStatus(await acct.as("test").post(`/v1/programs/${programId}/hooks`, { event: "location.status", url: `https://example.com/${i}` }), 201);
    }
    const message = await expectError(
      await acct.as("test").post(`/v1/programs/${programId}/hooks`, { event: "location.status", url: "https://example.com/one-more" }),
      409,
      "conflict",
    );
    expect(message).toContain(`already has ${HOOKS_PER_PROGRAM} hooks`);
  });
});

describe("hook URLs at connect time", () => {
  const post = (targets: "local" | "public", url: string) => {
    const client = createWebhookClient({ timeoutMs: 5_000, connectTimeoutMs: 2_000, targets, resolve: rebinding });
    return client.post(url, { "content-type": "application/json" }, "{}", new AbortController().signal).finally(() => client.close());
  };

  it("refuses a name that resolves to a refused address (DNS rebinding), without sending anything", async () => {
    const port = new URL(receiver.url).port;
    const before = receiver.received.length;
    const refused = await post("public", `http://rebind.example:${port}/hooks`);
    expect(refused).toEqual({
      responseCode: null,
      error: "refused by the webhook target policy: rebind.example resolves to a loopback address",
      cancelled: false,
      responseBody: null,
      retryAfter: null,
    });
    expect(receiver.received.length).toBe(before);
    // The same name under local reaches the receiver: what refused it was the policy, not the name.
    expect(await post("local", `http://rebind.example:${port}/hooks`)).toEqual({ responseCode: 200, error: null, cancelled: false, responseBody: "", retryAfter: null });
  });

  it("records a refused delivery as a failed attempt saying so", async () => {
    const acct = await local.createAccount();
    const programId = await programOf(acct, "test");
    const hook = await expectStatus<{ id: string }>(await acct.as("test").post(`/v1/programs/${programId}/hooks`, { event: "offer.extended", url: receiver.url }), 201);
    const before = receiver.received.length;
    // The hook was made under local; the deployment now runs under public.
    const dispatcher = createDispatcher({ db: local.services.db, clock: local.services.clock, log: pino({ level: "silent" }), drainMs: 100, targets: "public" });
    dispatcher.start();
    try {
      await enqueueEvent(local.services.db, { accountId: acct.id, live: false, programId, event: "offer.extended", data: {} }, local.services.clock.now());
      dispatcher.kick();
      await dispatcher.settled();
    } finally {
      await dispatcher.stop();
    }
    const { items } = await expectStatus<{ items: { attempts: { responseCode: number | null; error: string | null }[] }[] }>(
      await acct.as("test").get(`/v1/hooks/${hook.id}/deliveries`),
      200,
    );
    expect(items[0]!.attempts[0]).toMatchObject({
      responseCode: null,
      error: "refused by the webhook target policy: 127.0.0.1 is a loopback address, and WEBHOOK_TARGETS=public allows only public addresses",
    });
    expect(receiver.received.length).toBe(before);
  });

  it("says what happened without the internal address and port under public", async () => {
    const port = await freePort();
    const err = await request(`http://127.0.0.1:${port}/`, { method: "POST" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const options = { timedOut: false, timeoutMs: 20_000, connectTimeoutMs: 3_000 };
    expect(describeFailure(err, { ...options, policy: "public" })).toBe("connection refused");
    expect(describeFailure(err, { ...options, policy: "local" })).toBe(`connection refused: connect ECONNREFUSED 127.0.0.1:${port}`);
    // https to a server that speaks plain http: the handshake fails.
    const tls = await request(receiver.url.replace("http:", "https:"), { method: "POST" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(describeFailure(tls, { ...options, policy: "public" })).toMatch(/^TLS handshake failed \(\w+\)$/);
  });
});
