// `npm run bench -- traffic`: a simulator traffic run at load (POST /admin/simulators/traffic/start), followed to
// its end on each shape Cardlink runs in (`embedded`: `cardlink start`; `stack`: the roles as processes on
// PostgreSQL and Kafka, when DATABASE_URL and KAFKA_BROKERS are set). Printed: the rate offered, the rate the
// run itself reports achieved, how many purchases the networks made and how many the qualifier recorded (the
// program's transaction count through the API), the run's final state and how long after its end the last
// purchase was recorded. One program: the networks pair any card with any merchant they know, and a purchase
// at another program's location is not the card's program's to record. Environment: TRAFFIC_RATE (2,000/s),
// TRAFFIC_SECONDS (60), TRAFFIC_LOCATIONS (12, onboarded), TRAFFIC_CARDS (30, the three schemes' test numbers),
// TRAFFIC_SHAPES (embedded,stack).
import { testCardNumbers } from "../load/card-numbers.js";
import { startEmbedded, startStack, type Cardlink, type Shape } from "./support/cardlink.ts";

const RATE = Number(process.env.TRAFFIC_RATE ?? 2_000);
const SECONDS = Number(process.env.TRAFFIC_SECONDS ?? 60);
const LOCATIONS = Number(process.env.TRAFFIC_LOCATIONS ?? 12);
const CARDS = Number(process.env.TRAFFIC_CARDS ?? 30);
const canStack = Boolean(process.env.DATABASE_URL && process.env.KAFKA_BROKERS);
const SHAPES = (process.env.TRAFFIC_SHAPES ? process.env.TRAFFIC_SHAPES.split(",") : ["embedded", ...(canStack ? ["stack"] : [])]) as Shape[];
const log = (line: string) => process.stdout.write(line + "\n");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Status {
  run: { id: string; state: string } | null;
  achievedRate: number | null;
  counts: Record<string, { purchases: number }>;
}

async function run(shape: Shape): Promise<void> {
  const cardlink: Cardlink = shape === "embedded" ? await startEmbedded() : await startStack(process.env.DATABASE_URL!, process.env.KAFKA_BROKERS!);
  try {
    const admin = { Authorization: `Bearer ${cardlink.admin}` };
    async function call<T>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<T> {
      const res = await fetch(cardlink.url + path, { method, headers: { ...headers, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as T;
    }
    const account = await call<{ keys: { test: string } }>("POST", "/admin/accounts", admin, { name: "Traffic", tier: "standard" });
    const key = { "Cardlink-Key": account.keys.test };
    const program = await call<{ id: string }>("POST", "/v1/programs", key, { name: "Traffic" });
    const brand = await call<{ id: string }>("POST", "/v1/brands", key, { name: "Traffic brand" });
    for (let l = 0; l < LOCATIONS; l++) {
      await call("POST", `/v1/programs/${program.id}/locations`, key, { address: `${l + 1} High Street`, brandId: brand.id, city: "London", countryCode: "GBR", postcode: "N1 9GU" });
    }
    for (const number of testCardNumbers(CARDS)) await call("POST", `/v1/programs/${program.id}/cards`, key, { number, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
    const programs = [program.id];
    // Every location onboarded on every scheme before the run, so each purchase lands where the service knows the MIDs.
    for (const programId of programs) {
      for (;;) {
        const { items } = await call<{ items: { status: Record<string, { status: string; mids: unknown[] }> }[] }>("GET", `/v1/programs/${programId}/locations`, key);
        if (items.every((l) => Object.values(l.status).every((s) => s.status === "Active" && s.mids.length > 0))) break;
        await sleep(200);
      }
    }
    const recorded = async () => {
      let total = 0;
      for (const programId of programs) total += (await call<{ count: number }>("GET", `/v1/programs/${programId}/transactions?limit=1`, key)).count;
      return total;
    };
    const before = await recorded();
    const began = performance.now();
    await call("POST", "/admin/simulators/traffic/start", admin, { rate: RATE, seed: 1, durationSeconds: SECONDS, unenrolledCards: 0, unknownMerchants: 0, notOnboardedLocations: 0 });
    let status: Status;
    for (;;) {
      await sleep(1_000);
      status = await call<Status>("GET", "/admin/simulators/traffic", admin);
      if (status.run?.state !== "running" || performance.now() - began > (SECONDS + 300) * 1000) break;
    }
    const ended = performance.now();
    const made = Object.values(status.counts).reduce((n, c) => n + c.purchases, 0);
    let now = (await recorded()) - before;
    while (now < made && performance.now() - ended < 120_000) {
      await sleep(500);
      now = (await recorded()) - before;
    }
    log(
      `traffic on ${shape === "embedded" ? "one cardlink start process (PGlite, embedded log)" : "the roles as processes (PostgreSQL, Kafka)"}: ${RATE}/s offered for ${SECONDS} s ` +
        `over one program (${LOCATIONS} locations, ${CARDS} cards): the run reports ${status.run?.state} at ${((ended - began) / 1000).toFixed(1)} s, ` +
        `achieved ${status.achievedRate?.toFixed(0) ?? "-"}/s, ${made} purchases made, ${now} recorded ` +
        `(the last ${((performance.now() - ended) / 1000).toFixed(1)} s after the run ended)`,
    );
  } finally {
    await cardlink.close();
  }
}

for (const shape of SHAPES) await run(shape);
