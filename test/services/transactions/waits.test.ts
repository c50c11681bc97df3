// Waits for transactions the qualifier records share one query a tick, and see only the caller's own.
import { describe, expect, it } from "vitest";
import { expectStatus } from "../../support/harness.ts";
import { usePipeline } from "../../support/pipeline.ts";
import { world } from "../../support/offers-world.ts";
import { findAtNextTick } from "../../../src/services/transactions/waits.ts";
import type { Db } from "../../../src/platform/db.ts";

const pipeline = usePipeline(["simulators", "qualifier", "workers"]);

describe("waiting for transactions", () => {
  it("answers every wait of a tick with one query, and another account's transaction is none", async () => {
    const { h } = pipeline;
    const w = await world(h);
    const other = await world(h);
    const tx = await expectStatus<{ id: string }>(await w.client.post("/v1/transactions/test", { cardId: w.cardId, locationId: w.locationId, amount: 12 }), 201);

    // The process's database handle, counting the look-ups that reach it.
    const { db } = h.services;
    let lookups = 0;
    const counting: Db = { ...db, query: (text, params) => (text.includes("from transactions where id = any") && lookups++, db.query(text, params)) };
    const mine = { db: counting, accountId: w.acct.id, live: false };
    const theirs = { db: counting, accountId: other.acct.id, live: false };
    const found = await Promise.all([
      ...Array.from({ length: 20 }, () => findAtNextTick(mine, tx.id)),
      ...Array.from({ length: 5 }, () => findAtNextTick(theirs, tx.id)),
      findAtNextTick({ ...mine, live: true }, tx.id),
      findAtNextTick(mine, "00000000-0000-4000-8000-000000000000"),
    ]);
    expect(lookups).toBe(1);
    expect(found.slice(0, 20).every((t) => t?.id === tx.id && t.amount === 12)).toBe(true);
    expect(found.slice(20)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});
