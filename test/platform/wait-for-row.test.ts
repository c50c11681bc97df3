// waitForRow: a wait that probes again as soon as its channel is notified (a committed statement may have
// made what it looks for), not at its next look; the fallback covers a notification lost with a connection.
import { describe, expect, it } from "vitest";
import { openPglite, openPostgres, type Db } from "../../src/platform/db.ts";
import { waitForRow } from "../../src/platform/wait-for-row.ts";
import { randomBase62 } from "../../src/platform/ids.ts";
import { ENGINES } from "../support/harness.ts";
import { infra } from "../support/infra.ts";

const open = (engine: string): Promise<Db> | Db => (engine === "pglite" ? openPglite(undefined) : openPostgres(infra.databaseUrl!));
const NEVER = 10 * 60_000;

describe.each(ENGINES)("waitForRow on %s", (engine) => {
  it("finds what a notifying statement committed at once, though its fallback is ten minutes away", async () => {
    const db = await open(engine);
    const table = `probe_${randomBase62(10).toLowerCase()}`;
    const channel = `cardlink_probe_${randomBase62(10).toLowerCase()}`;
    await db.exec(`create table ${table} (n int)`);
    try {
      let probes = 0;
      const found = waitForRow(db, channel, performance.now() + NEVER, async () => {
        probes++;
        const [row] = await db.query<{ n: number }>(`select n from ${table}`);
        return row?.n;
      }, NEVER);
      // Written once the wait has probed (and found nothing), then notified in the same transaction.
      while (probes === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await db.tx(async (tx) => {
        await tx.query(`insert into ${table} (n) values (7)`);
        await tx.query("select pg_notify($1, '')", [channel]);
      });
      expect(await found).toBe(7);
    } finally {
      await db.exec(`drop table ${table}`);
      await db.close();
    }
  });

  it("answers what the probe last found once the deadline passes", async () => {
    const db = await open(engine);
    try {
      const found = await waitForRow(db, `cardlink_probe_${randomBase62(10).toLowerCase()}`, performance.now() + 50, async () => undefined, 10);
      expect(found).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it("with everyMs 0 leaves the pace to a probe that waits for its own look, probing again only when it answers", async () => {
    const db = await open(engine);
    try {
      let probes = 0;
      const found = await waitForRow(db, null, performance.now() + 100, async () => {
        probes++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return undefined;
      }, 0);
      expect(found).toBeUndefined();
      expect(probes).toBeLessThanOrEqual(6);
    } finally {
      await db.close();
    }
  });
});
