// The dispatcher's HTTP client against a real local receiver: an attempt cut short by the caller's signal
// is told apart from a failure by its state (`cancelled`), whatever the reason's words.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { createWebhookClient } from "../../src/dispatcher/http.ts";

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respondWith("hang");
});
afterAll(() => receiver.close());

const client = () => createWebhookClient({ timeoutMs: 300, connectTimeoutMs: 1_000 });

it("answers cancelled, with the signal's reason as the error, when the caller cuts an attempt short", async () => {
  const c = client();
  const signal = new AbortController();
  const before = receiver.received.length;
  const result = c.post(receiver.url, { "content-type": "application/json" }, "{}", signal.signal);
  await receiver.waitFor(before + 1);
  signal.abort(new Error("shutting down for the night"));
  expect(await result).toEqual({ responseCode: null, error: "shutting down for the night", cancelled: true, responseBody: null, retryAfter: null });
  await c.close();
});

it("answers a timeout as a failed attempt, not a cancelled one", async () => {
  const c = client();
  const result = await c.post(receiver.url, { "content-type": "application/json" }, "{}", new AbortController().signal);
  expect(result).toMatchObject({ responseCode: null, error: "timed out after 300 ms", cancelled: false });
  await c.close();
});
