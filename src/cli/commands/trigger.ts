// `cardlink trigger <event>`: fires the event on the fixtures program through the running service and
// prints the event id, the resources' ids as `export` lines and the outcome of each delivery — or, with
// --json, the whole answer as one JSON object and nothing else. Exit 1 unless every delivery succeeded.
import type { TriggerOverrides } from "../../services/simulator-control/index.ts";
import { SCHEMES, type Scheme } from "../../domain/scheme.ts";
import { UUID_PATTERN } from "../../platform/ids.ts";
import { command, print, UsageError } from "../args.ts";
import { cardlinkCommand } from "../invocation.ts";

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
  ["PURCHASE", "purchaseId"],
  ["NEW_BRAND", "newBrandId"],
  ["NEW_CARD", "newCardId"],
  ["MARKETPLACE_OFFER", "marketplaceOfferId"],
  ["ADDED_OFFER", "addedOfferId"],
] as const;

const TARGETING = ["new", "lapsed", "existing"] as const;

type OverrideValues = Partial<Record<"scheme" | "amount" | "currency" | "card" | "location" | "program" | "targeting" | "datetime" | "behaviour", string>>;

/** The network's behaviours a trigger can ask for (src/services/simulator-control/trigger.ts TRIGGER_BEHAVIOURS). */
const BEHAVIOURS = ["without-auth", "tip", "incremented", "duplicate-clearing", "converted"] as const;

/** The options' overrides, each checked here so a bad one is a one-line error naming it. */
function overridesOf(values: OverrideValues): TriggerOverrides {
  const o: TriggerOverrides = {};
  const bad = (option: string, rule: string) => new UsageError(`--${option}: ${rule}`);
  if (values.scheme !== undefined) {
    if (!(SCHEMES as readonly string[]).includes(values.scheme)) throw bad("scheme", `must be ${SCHEMES.join(", ")}`);
    o.scheme = values.scheme as Scheme;
  }
  if (values.amount !== undefined) {
    const amount = Number(values.amount);
    if (!/^\d+(\.\d+)?$/.test(values.amount) || !(amount > 0)) throw bad("amount", "must be a number greater than 0, such as 12.50");
    o.amount = amount;
  }
  if (values.currency !== undefined) {
    if (!/^[A-Za-z]{3}$/.test(values.currency)) throw bad("currency", "must be an ISO 4217 code such as GBP");
    o.currency = values.currency.toUpperCase();
  }
  for (const [option, field] of [["card", "cardId"], ["location", "locationId"], ["program", "programId"]] as const) {
    const id = values[option];
    if (id === undefined) continue;
    if (!UUID_PATTERN.test(id)) throw bad(option, `must be a ${option} id (UUID)`);
    o[field] = id;
  }
  if (values.targeting !== undefined) {
    if (!(TARGETING as readonly string[]).includes(values.targeting)) throw bad("targeting", `must be ${TARGETING.join(", ")}`);
    o.targeting = values.targeting as (typeof TARGETING)[number];
  }
  if (values.behaviour !== undefined) {
    if (!(BEHAVIOURS as readonly string[]).includes(values.behaviour)) throw bad("behaviour", `must be ${BEHAVIOURS.join(", ")}`);
    o.behaviour = values.behaviour as (typeof BEHAVIOURS)[number];
  }
  if (values.datetime !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(values.datetime)) throw bad("datetime", "must be YYYY-MM-DDThh:mm:ss, local to the location");
    o.datetime = values.datetime;
  }
  return o;
}

const text = { type: "string" } as const;

export const trigger = command({
  usage: `  trigger <event> [--key K] [--sandbox ID] [--url URL] [--json] [--scheme visa|mastercard|amex] [--amount N] [--currency C]
          [--card ID] [--location ID] [--program ID] [--targeting new|lapsed|existing] [--datetime LOCAL]
          [--behaviour without-auth|tip|incremented|duplicate-clearing|converted]
                            fire transaction.auth.qualified, transaction.auth, transaction.clearing,
                            transaction.clearing.qualified, transaction.refund, transaction.refund.qualified,
                            transaction.auth.expired, location.status, offer.extended,
                            missing-transaction-request.succeeded, missing-transaction-request.failed,
                            brand.consent, card.linked, card.failed, program.status,
                            marketplace.offer.live or marketplace.offer.updated through the simulators, the
                            qualifier and the dispatcher on a fixtures program (made on first use);
                            --behaviour: what the network does beside a plain purchase (a clearing's: with
                            no authorisation, with a tip, after an increment, sent twice; any purchase's:
                            billed in another currency); prints the event id, export lines of the ids, the
                            delivery (--json: the whole answer as one JSON object, nothing else); a
                            sandbox's test key, or the account's with --sandbox, fires it in that sandbox
`,
  options: {
    key: text,
    sandbox: text,
    url: text,
    scheme: text,
    amount: text,
    currency: text,
    card: text,
    location: text,
    program: text,
    targeting: text,
    datetime: text,
    behaviour: text,
    json: { type: "boolean", default: false },
  },
  positionals: true,
  async run({ values, positionals }, config) {
    const [{ TRIGGER_EVENTS }, { answer, connect }] = await Promise.all([import("../../services/simulator-control/trigger.ts"), import("../connection.ts")]);
    const event = positionals[0];
    if (!event || !(TRIGGER_EVENTS as readonly string[]).includes(event)) {
      throw new UsageError(`trigger: name one event: ${TRIGGER_EVENTS.join(", ")}`);
    }
    if (positionals.length > 1) throw new UsageError(`trigger: one event at a time (got ${positionals.join(" ")})`);
    const overrides = overridesOf(values);
    const conn = connect(config, values);
    if (conn.live) throw new UsageError("--key: trigger works in the test environment; give a test key (sk_test_…)");
    const result = await answer(conn.url, conn.client.POST("/v1/trigger", { body: { event: event as (typeof TRIGGER_EVENTS)[number], ...overrides } }));
    const ok = result.dispatched && result.deliveries.every((d) => d.status === "succeeded");
    if (values.json) {
      print([JSON.stringify(result)]);
      return ok ? 0 : 1;
    }
    const lines = result.eventIds.map((id) => `${result.event} ${id}`);
    lines.push(`  ${result.summary}`);
    for (const [name, field] of EXPORTS) {
      const id = result.resources[field];
      if (id) lines.push(`export ${name}=${id}`);
    }
    if (!result.dispatched) {
      lines.push("not dispatched yet: is the dispatcher role running? (`npm start` runs it)");
    } else if (result.deliveries.length === 0) {
      lines.push(`no hook for ${result.event} on program ${result.resources.programId}: start \`${cardlinkCommand("listen")}\` in another terminal, then trigger again`);
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
    print(lines);
    return ok ? 0 : 1;
  },
});
