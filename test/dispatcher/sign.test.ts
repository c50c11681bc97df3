import { describe, expect, it } from "vitest";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { signedHeaders } from "../../src/dispatcher/sign.ts";

// Secrets as the hooks route makes them (whsec_ and 24 random bytes in base64) and a longer one.
const secrets = ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_" + Buffer.alloc(32, 7).toString("base64")];
const body = JSON.stringify({ id: "evt_1", event: "transaction.auth", data: { amount: 12.5, note: "café ☕" } });

describe("signedHeaders", () => {
  it.each(secrets)("signs as the Standard Webhooks library verifies (%s)", (secret) => {
    const headers = signedHeaders(secret, "evt_1", body);
    expect(headers["webhook-id"]).toBe("evt_1");
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // The same signature the library itself makes for that id, time and body.
    const at = new Date(Number(headers["webhook-timestamp"]) * 1000);
    expect(headers["webhook-signature"]).toBe(new Webhook(secret).sign("evt_1", at, body));
  });

  it("does not verify under another secret or with the body changed", () => {
    const headers = signedHeaders(secrets[0]!, "evt_1", body);
    expect(() => new Webhook(secrets[1]!).verify(body, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secrets[0]!).verify(body.replace("12.5", "125"), headers)).toThrow(WebhookVerificationError);
  });
});
