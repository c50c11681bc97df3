// The store suite, run on both engines: PGlite (the embedded default) and a real PostgreSQL server.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite, openPostgres, type Db } from "../../src/platform/db.ts";
import { migrate, serviceMigrations } from "../../src/platform/migrate.ts";
import { randomBase62 } from "../../src/platform/ids.ts";
import { haveInfra, infra } from "../support/infra.ts";

interface Engine {
  name: "pglite" | "postgres";
  /** Prepares an empty store and returns how to open it (again) and how to throw it away. */
  create(): Promise<{ open(): Promise<Db>; destroy(): Promise<void> }>;
}

const pglite: Engine = {
  name: "pglite",
  async create() {
    const dir = mkdtempSync(join(tmpdir(), "cardlink-store-"));
    return { open: () => openPglite(dir), destroy: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

// A database of its own on the server, so the suite sees migrations run on an empty schema.
const postgresEngine: Engine = {
  name: "postgres",
  async create() {
    const server = openPostgres(infra.databaseUrl!, { max: 1 });
    const name = `cardlink_store_${randomBase62(10).toLowerCase()}`;
    await server.exec(`create database ${name}`);
    const url = new URL(infra.databaseUrl!);
    url.pathname = `/${name}`;
    return {
      open: async () => openPostgres(url.toString(), { max: 4 }),
      async destroy() {
        await server.exec(`drop database if exists ${name} with (force)`);
        await server.close();
      },
    };
  },
};

const engines = [pglite, ...(haveInfra("databaseUrl") ? [postgresEngine] : [])];
const migrationFiles = readdirSync(fileURLToPath(new URL("../../src/platform/migrations/", import.meta.url)))
  .filter((f) => f.endsWith(".sql"))
  .sort();

describe.each(engines)("store on $name", (engine) => {
  let store: Awaited<ReturnType<Engine["create"]>>;
  let db: Db;

  beforeAll(async () => {
    store = await engine.create();
    db = await store.open();
  });
  afterAll(async () => {
    await db?.close();
    await store?.destroy();
  });

  it("applies every migration once, in order, and nothing on a second run", async () => {
    expect(db.engine).toBe(engine.name);
    expect(await migrate(db)).toEqual(migrationFiles);
    expect(await migrate(db)).toEqual([]);
    // Processes starting together wait for each other rather than racing.
    expect(await Promise.all([migrate(db), migrate(db)])).toEqual([[], []]);
    const applied = await db.query<{ name: string }>("select name from schema_migrations order by name");
    expect(applied.map((r) => r.name)).toEqual(migrationFiles);
    const tables = await db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public'",
    );
    for (const t of ["accounts", "api_keys", "programs", "brands", "cards", "locations", "location_networks", "hooks", "settings"]) {
      expect(tables.map((r) => r.table_name)).toContain(t);
    }
  });

  it("counts a migration recorded under its former name as applied, and writes nothing over the record", { timeout: 120_000 }, async () => {
    const other = await engine.create();
    const old = await other.open();
    const formerDir = mkdtempSync(join(tmpdir(), "cardlink-former-names-"));
    try {
      // The same files, one of them under the name an older release's database recorded for it.
      const renamed = Object.entries(serviceMigrations.formerNames!);
      expect(renamed.length).toBeGreaterThan(0);
      const formerOf = new Map(renamed);
      for (const f of migrationFiles) copyFileSync(join(serviceMigrations.dir, f), join(formerDir, formerOf.get(f) ?? f));
      const recorded = [...migrationFiles.map((f) => formerOf.get(f) ?? f)].sort();
      expect(await migrate(old, { ...serviceMigrations, dir: `${formerDir}/`, formerNames: undefined })).toEqual(recorded);
      expect(await migrate(old)).toEqual([]);
      const names = await old.query<{ name: string }>("select name from schema_migrations order by name");
      expect(names.map((r) => r.name)).toEqual(recorded);
    } finally {
      rmSync(formerDir, { recursive: true, force: true });
      await old.close();
      await other.destroy();
    }
  });

  it("keeps data when the store is closed and opened again", async () => {
    await db.exec("create table kept (id int primary key, note text)");
    await db.query("insert into kept values ($1, $2)", [1, "still here"]);
    await db.close();
    db = await store.open();
    expect(await db.query("select * from kept")).toEqual([{ id: 1, note: "still here" }]);
    expect(await migrate(db)).toEqual([]);
  });

  it("parses int8, numeric, date, timestamp, timestamptz, jsonb, arrays and uuids the same way", async () => {
    const [row] = await db.query<Record<string, unknown>>(
      `select 9007199254740991::int8 as big, count(*) as counted, 12.345::numeric as num, 7::int4 as small,
         '2026-01-05'::date as day, '2026-01-05 10:11:12.345'::timestamp as local,
         '2026-01-05T10:11:12.345Z'::timestamptz as instant, $1::jsonb as doc, 'null'::jsonb as json_null,
         $2::uuid[] as ids, true as yes, 'a'::text as txt, null::text as nothing
       from (values (1), (2)) v(x)`,
      [JSON.stringify({ a: [1, "x", null], b: { c: true } }), ["3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b"]],
    );
    expect(row).toEqual({
      big: 9007199254740991,
      counted: 2,
      num: 12.345,
      small: 7,
      day: "2026-01-05",
      local: "2026-01-05T10:11:12",
      instant: new Date("2026-01-05T10:11:12.345Z"),
      doc: { a: [1, "x", null], b: { c: true } },
      json_null: null,
      ids: ["3f2b9c1e-8d4a-4b6e-9f1a-2c3d4e5f6a7b"],
      yes: true,
      txt: "a",
      nothing: null,
    });
    expect(row!.instant).toBeInstanceOf(Date);
  });

  it("binds Dates, numbers and nulls as parameters and round-trips them", async () => {
    await db.exec("create table bound (at timestamptz, local timestamp, day date, amount numeric(12, 2), n int8)");
    const at = new Date("2026-02-03T04:05:06.789Z");
    await db.query("insert into bound values ($1, $2, $3, $4, $5)", [at, "2026-02-03T04:05:06", "2026-02-03", 10.5, null]);
    expect(await db.query("select * from bound")).toEqual([
      { at, local: "2026-02-03T04:05:06", day: "2026-02-03", amount: 10.5, n: null },
    ]);
  });

  it("commits a transaction, rolls back a failed one, and joins an open one from inside", async () => {
    await db.exec("create table ledger (id int primary key, note text)");
    await db.tx(async (tx) => {
      await tx.query("insert into ledger values (1, 'committed')");
      await tx.tx(async (inner) => inner.query("insert into ledger values (2, 'joined')"));
    });
    await expect(
      db.tx(async (tx) => {
        await tx.query("insert into ledger values (3, 'rolled back')");
        await tx.tx(async (inner) => inner.query("insert into ledger values (4, 'rolled back too')"));
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    // A failing statement aborts the whole transaction, including what ran before it.
    await expect(
      db.tx(async (tx) => {
        await tx.query("insert into ledger values (5, 'before the error')");
        await tx.query("insert into ledger values (1, 'duplicate key')");
      }),
    ).rejects.toThrow();
    expect((await db.query<{ id: number }>("select id from ledger order by id")).map((r) => r.id)).toEqual([1, 2]);
  });

  it("answers concurrent queries and keeps concurrent transactions whole", async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => db.query<{ n: number }>("select $1::int as n", [i])));
    expect(answers.map(([r]) => r!.n)).toEqual(Array.from({ length: 25 }, (_, i) => i));

    await db.exec("create table counter (id int primary key, n int not null); insert into counter values (1, 0)");
    await Promise.all(
      Array.from({ length: 10 }, () =>
        db.tx(async (tx) => {
          const [{ n } = { n: 0 }] = await tx.query<{ n: number }>("select n from counter where id = 1 for update");
          await tx.query("update counter set n = $1 where id = 1", [n + 1]);
        }),
      ),
    );
    expect(await db.query("select n from counter")).toEqual([{ n: 10 }]);
  });
});
