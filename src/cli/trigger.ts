// `cardlink trigger <event>`: fires the event on the fixtures program through the running service and
// prints the event id, the resources' ids as `export` lines and the outcome of each delivery.
import { parseArgs } from "node:util";
import type { Config } from "../config/index.ts";
import { TRIGGER_EVENTS, type TriggerEvent } from "../services/trigger.ts";
import { answer, connect, type Usage } from "./connection.ts";

/** The shell variables the walk-through pages use for these ids. */
const EXPORTS = [
  ["PROGRAM", "programId"],
  ["BRAND", "brandId"],
  ["LOCATION", "locationId"],
  ["CARD", "cardId"],
  ["OFFER", "offerId"],
  ["TX", "transactionId"],
  ["NEW_LOCATION", "newLocationId"],
  ["REQUEST", "missingTransactionRequestId"],
] as const;

/** The lines to print, and whether every delivery succeeded (the exit status). */
export async function triggerCommand(args: string[], config: Config, usage: Usage): Promise<{ lines: string[]; ok: boolean }> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { key: { type: "string" }, url: { type: "string" } } });
  const event = positionals[0];
  if (!event || !(TRIGGER_EVENTS as readonly string[]).includes(event)) {
    throw usage(`trigger: name one event: ${TRIGGER_EVENTS.join(", ")}`);
  }
  const conn = connect(config, values, usage);
  if (conn.live) throw usage("--key: trigger works in the test environment; give a test key (sk_test_…)");
  const result = await answer(conn.url, conn.client.POST("/v1/trigger", { body: { event: event as TriggerEvent } }));
  const lines = result.eventIds.map((id) => `${result.event} ${id}`);
  lines.push(`  ${result.summary}`);
  for (const [name, field] of EXPORTS) {
    const id = result.resources[field];
    if (id) lines.push(`export ${name}=${id}`);
  }
  if (!result.dispatched) {
    lines.push("not dispatched yet: is the dispatcher role running? (`npm start` runs it)");
  } else if (result.deliveries.length === 0) {
    lines.push(`no hook for ${result.event} on program ${result.resources.programId}: start \`npm run cardlink -- listen\` in another terminal, then trigger again`);
  }
  for (const d of result.deliveries) {
    const outcome =
      d.status === "succeeded"
        ? `delivered: ${d.responseCode}`
        : d.attempts === 0
          ? "not attempted yet"
          : `attempt ${d.attempts} failed (${d.responseCode ?? d.error ?? "no answer"})${d.status === "pending" ? ", will retry" : ", no attempt left"}`;
    lines.push(`${outcome} -> ${d.url} (hook ${d.hookId})`);
  }
  return { lines, ok: result.dispatched && result.deliveries.every((d) => d.status === "succeeded") };
}
