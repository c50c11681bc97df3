// `npm run bench -- offers`: creating and linking offers of one brand, and listing them by status, with
// 2,000 offers (N to change). PGlite by default; PostgreSQL with ENGINE=postgres and DATABASE_URL.
import { performance } from "node:perf_hooks";
import { createHarness, expectStatus } from "../test/support/harness.ts";
import { localAt } from "../src/domain/local-dates.ts";

const h = await createHarness({ engine: (process.env.ENGINE as "pglite" | "postgres") ?? "pglite" });
const acct = await h.createAccount();
const c = acct.as("test");
const program = await expectStatus<{ id: string }>(await c.post("/v1/programs", { name: "B" }), 201);
const brand = await expectStatus<{ id: string }>(await c.post("/v1/brands", { name: "B" }), 201);
const loc = await expectStatus<{ id: string }>(await c.post(`/v1/programs/${program.id}/locations`, { address: "a", brandId: brand.id, city: "c", countryCode: "GBR", postcode: "p" }), 201);
const now = h.services.clock.now().getTime();
const local = (d: number) => localAt(new Date(now + d * 864e5), "Europe/London");
const N = Number(process.env.N ?? 2000);
const t = performance.now();
for (let i = 0; i < N; i++) {
  const o = await expectStatus<{ id: string }>(await c.post("/v1/offers", { brandId: brand.id, countryCode: "GBR", name: `o${i}`, publisherId: acct.id, startDate: local((i % 20) - 10), endDate: local((i % 20) - 5 + 30 * (i % 3)), type: { name: "discount", value: 5 } }), 201);
  if (i % 2 === 0) await expectStatus(await c.post(`/v1/offers/${o.id}/locations/${loc.id}`), 201);
}
const create = (performance.now() - t) / N;
const time = async (path: string, runs = 20) => {
  const ms: number[] = [];
  let count = 0;
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    count = (await expectStatus<{ count: number }>(await c.get(path), 200)).count;
    ms.push(performance.now() - s);
  }
  ms.sort((a, b) => a - b);
  return `${path}: count ${count}, median ${ms[runs / 2]!.toFixed(1)} ms, p95 ${ms[Math.floor(runs * 0.95)]!.toFixed(1)} ms`;
};
console.log(`engine ${process.env.ENGINE ?? "pglite"}, ${N} offers (half linked): create+link ${create.toFixed(1)} ms per offer`);
for (const p of ["/v1/offers?limit=100", "/v1/offers?status=live&limit=100", "/v1/offers?status=requests&limit=100", "/v1/offers?expiringSoon=true&limit=100"]) console.log(await time(p));
await h.close();
