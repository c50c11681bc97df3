// The feature walls in SQL: every table of the migrations has one owner (a feature, or the platform), and no
// string or template literal in src/ or simulators/ names a table in SQL outside the room that owns it, but for the
// few exceptions below, each with its reason. A table name built at run time (`from ${…}`) is allowed only in
// the files listed.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The room that owns each table and view: the feature whose files write it, or the platform. */
const OWNERS: Record<string, string> = {
  accounts: "services/accounts",
  api_keys: "services/accounts",
  server_secrets: "services/accounts",
  dashboard_sessions: "services/accounts",
  rate_limit_buckets: "services/accounts",
  programs: "services/catalog",
  brands: "services/catalog",
  cards: "services/catalog",
  locations: "services/catalog",
  location_networks: "services/catalog",
  program_syncs: "services/catalog",
  offers: "services/offers",
  offer_locations: "services/offers",
  offer_activations: "services/offers",
  offer_records: "services/offers",
  marketplace_offers: "services/offers",
  marketplace_offer_live: "services/offers",
  transactions: "services/transactions",
  transaction_messages: "services/transactions",
  // Bumped by migration 010's triggers only; read by transactions/index-versions.ts.
  offer_index_version: "services/transactions",
  location_index_version: "services/transactions",
  mids: "services/mid-insights",
  mid_insights: "services/mid-insights",
  mid_insight_counts: "services/mid-insights",
  mid_insight_exports: "services/mid-insights",
  mid_insight_export_chunks: "services/mid-insights",
  mid_insight_export_mails: "services/mid-insights",
  missing_transaction_requests: "services/missing-transactions",
  hooks: "services/webhooks",
  webhook_deliveries: "services/webhooks",
  webhook_attempts: "services/webhooks",
  request_log: "services/request-log",
  test_purchases: "services/simulator-control",
  network_faults: "services/simulator-control",
  traffic_runs: "services/simulator-control",
  traffic_run_counts: "services/simulator-control",
  environment_clock_acks: "services/simulator-control",
  // The outboxes (outbox_events and the view outbox over it, the stages' claims), idempotency and the service clock's settings.
  outbox: "platform",
  outbox_events: "platform",
  transaction_stages: "platform",
  network_outbox: "platform",
  idempotency_keys: "platform",
  settings: "platform",
};

/** Accepted exceptions, `room|table`, each with why. */
const ALLOWED: Record<string, string> = {
  "services/webhooks|outbox": "the webhook events are the outbox's rows: services/webhooks is its reading side (lists, deliveries), platform/outbox.ts its one writer",
  "services/webhooks|outbox_events": "as outbox: the table under the view",
  "services/webhooks|transaction_stages": "which events are a transaction's: the outbox's claims, read beside it",
  "platform|accounts": "an environment's clock is columns of its account row (migration 027, env_now()); platform/clock/environment.ts reads them, and joins them for the features whose rows need them",
};

/** The files that may build a table name at run time: generic helpers given the name by their caller, or their own views. */
const DYNAMIC_OK = [
  "src/platform/migrate.ts",
  "src/platform/page.ts",
  "src/platform/sql-row.ts",
  "src/platform/write-together.ts",
  "src/services/catalog/marked.ts",
  "src/services/mid-insights/export-mail.ts",
  "src/services/mid-insights/list.ts",
  "src/services/webhooks/events.ts",
  "simulators/engine/environments.ts",
];

/** The tables and views the migrations leave, in their order: each one created, or renamed to its name. */
function migrationTables(): Set<string> {
  const tables = new Set<string>();
  const folder = join(root, "src/platform/migrations");
  const step = /\bcreate\s+(?:unlogged\s+)?(?:table|(?:or\s+replace\s+)?(?:materialized\s+)?view)\s+(?:if\s+not\s+exists\s+)?(\w+)|\balter\s+table\s+(\w+)\s+rename\s+to\s+(\w+)/gi;
  for (const f of readdirSync(folder).filter((f) => f.endsWith(".sql")).sort()) {
    const sql = readFileSync(join(folder, f), "utf8").replace(/--.*$/gm, "");
    for (const m of sql.matchAll(step)) {
      if (m[1]) tables.add(m[1].toLowerCase());
      else {
        tables.delete(m[2]!.toLowerCase());
        tables.add(m[3]!.toLowerCase());
      }
    }
  }
  return tables;
}

/** The room a file stands in: a feature, the platform, a role or transport folder, or the simulators. */
function roomOf(rel: string): string {
  const feature = rel.match(/^src\/services\/([^/]+)\//);
  if (feature) return `services/${feature[1]}`;
  if (rel.startsWith("src/platform/")) return "platform";
  if (rel.startsWith("simulators/")) return "simulators";
  return rel.match(/^src\/([^/]+)\//)?.[1] ?? rel;
}

const SQLISH = /\b(select|insert|update|delete|with|create|alter|lock|truncate|notify)\b/i;
const REF = /\b(from|join|into|update|table|exists|references|lock\s+table|truncate)\s+(?:only\s+)?(?:public\.)?(\w+)/gi;

/** The known tables a SQL text names, each with where, CTE names, `do update`, `for update` and quoted identifiers left out. */
function tablesIn(sql: string, tables: Set<string>): { name: string; at: number }[] {
  const ctes = new Set([...sql.matchAll(/\b(\w+)\s+as\s+(?:not\s+)?(?:materialized\s+)?\(/gi)].map((m) => m[1]!.toLowerCase()));
  const out: { name: string; at: number }[] = [];
  for (const m of sql.matchAll(REF)) {
    const word = m[1]!.toLowerCase();
    const name = m[2]!.toLowerCase();
    if (!tables.has(name) || ctes.has(name)) continue;
    const before = sql.slice(Math.max(0, m.index - 12), m.index).toLowerCase();
    // `on conflict … do update set` and `for update` name no table; `exists (select … from t)` is found by its `from`.
    if (word === "update" && /(do|for)\s+$/.test(before)) continue;
    if (word === "exists") continue;
    out.push({ name, at: m.index });
  }
  return out;
}

interface Use {
  rel: string;
  line: number;
  table: string;
}

/** Every table named in SQL in the file's string and template literals (a `${…}` stands as a blank), and each `from ${…}`. */
function usesIn(rel: string, source: string, tables: Set<string>): { uses: Use[]; dynamic: Use[] } {
  const sf = ts.createSourceFile(rel, source, ts.ScriptTarget.Latest, true, rel.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const uses: Use[] = [];
  const dynamic: Use[] = [];
  const lineAt = (start: number, text: string, at: number) => sf.getLineAndCharacterOfPosition(start).line + 1 + (text.slice(0, at).match(/\n/g)?.length ?? 0);
  const scan = (text: string, start: number) => {
    if (!SQLISH.test(text)) return;
    for (const m of text.matchAll(/\b(from|join|into|update)\s+\$\{\}/gi)) dynamic.push({ rel, line: lineAt(start, text, m.index), table: "${…}" });
    for (const u of tablesIn(text, tables)) uses.push({ rel, line: lineAt(start, text, u.at), table: u.name });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) scan(node.text, node.getStart(sf));
    else if (ts.isTemplateExpression(node)) scan(node.head.text + node.templateSpans.map((s) => " ${} " + s.literal.text).join(""), node.getStart(sf));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { uses, dynamic };
}

/** The uses that neither stand in their table's room nor are an accepted exception. */
const foreign = (uses: Use[]) => uses.filter((u) => OWNERS[u.table] !== roomOf(u.rel) && !ALLOWED[`${roomOf(u.rel)}|${u.table}`]);
const at = (u: Use) => `${u.rel}:${u.line} ${u.table}`;

const tables = migrationTables();
const scanned = ["src", "simulators"]
  .flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(ts|tsx|mts)$/.test(e.name) && !/\.generated\.ts$/.test(e.name))
      .map((e) => relative(root, join(e.parentPath, e.name))),
  )
  .map((rel) => usesIn(rel, readFileSync(join(root, rel), "utf8"), tables));
const uses = scanned.flatMap((s) => s.uses);
const dynamic = scanned.flatMap((s) => s.dynamic);

describe("the feature walls in SQL", () => {
  it("finds the tables a statement names, and not its CTEs, its conflict clause, its locks or quoted names", () => {
    const sample = `with cards_due as (select 1)
      select * from cards c join brands b on b.id = c.brand_id, cards_due;
      insert into offers (id) values ($1) on conflict (id) do update set id = excluded.id;
      delete from hooks where id = $1;
      select id from locations where id = $1 for update;
      select "programs" from "mids"`;
    expect(tablesIn(sample, tables).map((t) => t.name)).toEqual(["cards", "brands", "offers", "hooks", "locations"]);
  });

  it("fails a feature's file that names another feature's table", () => {
    const { uses: found } = usesIn("src/services/request-log/example.ts", 'export const q = "select 1 from cards where id = $1";\n', tables);
    expect(foreign(found).map(at)).toEqual(["src/services/request-log/example.ts:1 cards"]);
  });

  it("has one owner for every table and view of the migrations, each owner a room that exists", () => {
    expect([...tables].filter((t) => !OWNERS[t])).toEqual([]);
    expect([...new Set(Object.values(OWNERS))].filter((room) => !existsSync(join(root, "src", room)))).toEqual([]);
  });

  it("names no table in SQL outside the room that owns it, but for the accepted exceptions", () => {
    expect(foreign(uses).map(at)).toEqual([]);
  });

  it("has no accepted exception that nothing uses any more", () => {
    expect(Object.keys(ALLOWED).filter((key) => !uses.some((u) => `${roomOf(u.rel)}|${u.table}` === key))).toEqual([]);
  });

  it("builds a table name at run time only in the files that may", () => {
    expect(dynamic.filter((d) => !DYNAMIC_OK.includes(d.rel)).map((d) => `${d.rel}:${d.line}`)).toEqual([]);
  });

  it("has the simulators name no service table at all", () => {
    expect(uses.filter((u) => roomOf(u.rel) === "simulators" && OWNERS[u.table]?.startsWith("services/")).map(at)).toEqual([]);
  });
});
