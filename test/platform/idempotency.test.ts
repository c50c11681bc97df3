// Rule: an idempotency record's fingerprint of the request is an HMAC-SHA256 under a server secret
// (IDEMPOTENCY_SECRET, or one generated once and kept in server_secrets), so the card number in a kept
// request cannot be recovered by hashing candidates.
import { createHash, createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectStatus, type Harness } from "../support/harness.ts";

const SECRET = "an-idempotency-secret-of-32-characters-or-more";
const NUMBER = "4444000000004008";

let generated: Harness;
let configured: Harness;
beforeAll(async () => {
  [generated, configured] = await Promise.all([createHarness(), createHarness({ env: { IDEMPOTENCY_SECRET: SECRET } })]);
});
afterAll(() => Promise.all([generated.close(), configured.close()]));

/** Enrols the card under an Idempotency-Key; returns the fingerprint kept and what a plain hash of the request would be. */
async function enrol(h: Harness) {
  const acct = await h.createAccount();
  const programId = (await expectStatus<{ id: string }>(await acct.as("test").post("/v1/programs", { name: "Cards" }), 201)).id;
  const path = `/v1/programs/${programId}/cards`;
  const body = JSON.stringify({ number: NUMBER, expMonth: 12, expYear: 2028, countryCode: "GBR", termsOfUse: true });
  const headers = { "Cardlink-Key": acct.keys.test, "Idempotency-Key": "enrol-1" };
  const first = await expectStatus(await h.request("POST", path, { body, headers }), 201);
  const replay = await h.request("POST", path, { body, headers });
  expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
  expect(await expectStatus(replay, 201)).toEqual(first);
  const [row] = await h.services.db.query<{ fingerprint: string }>("select fingerprint from idempotency_keys where account_id = $1 and key = 'enrol-1'", [acct.id]);
  const request = `POST ${path}\u0000${body}`;
  return { fingerprint: row!.fingerprint, request, plain: createHash("sha256").update(request).digest("hex") };
}

describe("idempotency fingerprints", () => {
  it("are keyed: a candidate card number hashed alone does not match the stored fingerprint", async () => {
    const { fingerprint, request, plain } = await enrol(generated);
    expect(fingerprint).not.toBe(plain);
    // Keyed with the server secret kept in the database (one for every process of the deployment).
    const [secret] = await generated.services.db.query<{ value: string }>("select value from server_secrets where name = 'idempotency-fingerprint'");
    expect(secret!.value.length).toBeGreaterThanOrEqual(43);
    expect(fingerprint).toBe(createHmac("sha256", secret!.value).update(request).digest("hex"));
  });

  it("use IDEMPOTENCY_SECRET when it is set, so replicas can share a secret kept outside the database", async () => {
    const { fingerprint, request } = await enrol(configured);
    expect(fingerprint).toBe(createHmac("sha256", SECRET).update(request).digest("hex"));
  });
});
