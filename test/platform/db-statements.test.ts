// countStatements: what cardlink_db_statements_total counts, on the embedded engine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countStatements, openPglite, type Db } from "../../src/platform/db.ts";

describe("countStatements", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite(undefined);
  });
  afterAll(() => db.close());

  it("counts each query and script, a transaction's begin and commit, and nothing for a transaction joined inside one", async () => {
    let sent = 0;
    const counted = countStatements(db, () => sent++);
    await counted.query("select 1");
    await counted.exec("select 1; select 2");
    expect(sent).toBe(2);
    const answer = await counted.tx(async (inner) => {
      await inner.query("select 1");
      return inner.tx(async (joined) => (await joined.query<{ n: number }>("select 2 as n"))[0]!.n);
    });
    expect(answer).toBe(2);
    expect(sent).toBe(2 + 2 + 2);
  });
});
