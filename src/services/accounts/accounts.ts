// Accounts and their secret keys. A key is shown once, at creation; only its SHA-256 digest is kept
// (keys carry 190 bits of randomness, so a fast digest is enough and keeps look-ups cheap).
import type { Db } from "../../platform/db.ts";
import { newId, randomBase62, sha256 } from "../../platform/ids.ts";
import { endKeySessions } from "./sessions.ts";
import { groupedLookup, ROUND_TICK_MS } from "../../platform/group-commit.ts";
import { uuid } from "../../domain/field-rules.ts";
import { Filters, pageByCreated, type Page, type PageQuery } from "../../platform/page.ts";
import type { EnvironmentClock } from "../../platform/clock/environment.ts";

export type Tier = "standard" | "premium";

export interface Account {
  id: string;
  name: string;
  tier: Tier;
  email: string | null;
  created: string;
  updated: string;
}

export interface AccountWithKeys extends Account {
  keys: { test: string; live: string };
}

interface AccountRow {
  id: string;
  name: string;
  tier: Tier;
  email: string | null;
  created: Date;
  updated: Date;
}

const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  tier: r.tier,
  email: r.email,
  created: r.created.toISOString(),
  updated: r.updated.toISOString(),
});

const newSecretKey = (live: boolean) => `sk_${live ? "live" : "test"}_${randomBase62(32)}`;

export async function insertKey(db: Db, accountId: string, live: boolean, now: Date): Promise<{ id: string; key: string }> {
  const key = newSecretKey(live);
  const id = newId();
  await db.query("insert into api_keys (id, account_id, live, hash, hint, created) values ($1, $2, $3, $4, $5, $6)", [
    id,
    accountId,
    live,
    sha256(key),
    key.slice(-4),
    now,
  ]);
  return { id, key };
}

export async function createAccount(
  db: Db,
  input: { name: string; tier: Tier; email?: string | null },
  now: Date,
): Promise<AccountWithKeys> {
  return db.tx(async (tx) => {
    const [row] = await tx.query<AccountRow>(
      "insert into accounts (id, name, tier, email, created, updated) values ($1, $2, $3, $4, $5, $5) returning *",
      [newId(), input.name, input.tier, input.email ?? null, now],
    );
    const account = toAccount(row!);
    const test = await insertKey(tx, account.id, false, now);
    const live = await insertKey(tx, account.id, true, now);
    return { ...account, keys: { test: test.key, live: live.key } };
  });
}

export async function getAccount(db: Db, id: string): Promise<Account | undefined> {
  const [row] = await db.query<AccountRow>("select * from accounts where id = $1", [id]);
  return row && toAccount(row);
}

export async function updateAccount(
  db: Db,
  id: string,
  patch: { tier?: Tier; name?: string },
  now: Date,
): Promise<Account | undefined> {
  // Its sandboxes keep its tier.
  const [row] = await db.query<AccountRow>(
    `with changed as (
       update accounts set tier = coalesce($2, tier), name = coalesce($3, name), updated = $4
       where id = $1 and parent_id is null returning *
     ), sandboxes as (
       update accounts s set tier = changed.tier, updated = $4 from changed where s.parent_id = changed.id
     ) select * from changed`,
    [id, patch.tier ?? null, patch.name ?? null, now],
  );
  return row && toAccount(row);
}

/** The accounts, without their sandboxes (each account lists its own: GET /v1/sandboxes). */
export const listAccounts = (db: Db, page: PageQuery): Promise<Page<Account>> =>
  pageByCreated(db, "accounts", new Filters().add("parent_id is null"), page, toAccount);

/**
 * Who a key opens: the account, its environment (test or live), and for a sandbox's key the owner and
 * the sandbox's clock (read in the same statement, so every replica agrees on it at each request).
 */
export interface KeyOwner {
  keyId: string;
  live: boolean;
  account: Account;
  /** The owner's id when the account is a sandbox. */
  parentId: string | null;
  clock: EnvironmentClock;
}

type OwnerRow = AccountRow & { key_id: string; live: boolean; hash: string; parent_id: string | null; clock_frozen: boolean; clock_offset_ms: number };

const keyOwner = (row: OwnerRow): KeyOwner => ({
  keyId: row.key_id,
  live: row.live,
  account: toAccount(row),
  parentId: row.parent_id,
  clock: { frozen: row.clock_frozen, offsetMs: row.clock_offset_ms },
});

/** Current keys by digest or id, many at once: the requests that arrive together (within a tick when busy) are checked in one statement. */
function keyOwners(column: "hash" | "key_id") {
  return groupedLookup(async (db: Db, values: string[]) => {
    const rows = await db.query<OwnerRow>(
      `select a.*, k.id as key_id, k.hash, k.live from api_keys k join accounts a on a.id = k.account_id
       where ${column === "hash" ? "k.hash = any($1::text[])" : "k.id = any($1::uuid[])"} and k.revoked is null`,
      [values],
    );
    return new Map(rows.map((row) => [row[column], keyOwner(row)]));
    // Before the look-up the account is not known; each key takes its own turn (an account's requests mostly carry one).
  }, { fairBy: (value) => value, tickMs: ROUND_TICK_MS });
}
const byHash = keyOwners("hash");
const byId = keyOwners("key_id");

/** A key as the operator sees it: never the key itself (only its digest is kept), its last four characters. */
export interface ApiKeyInfo {
  id: string;
  environment: "test" | "live";
  hint: string;
  created: string;
  revoked: string | null;
}

interface KeyRow {
  id: string;
  live: boolean;
  hint: string;
  created: Date;
  revoked: Date | null;
}

const toKeyInfo = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  environment: r.live ? "live" : "test",
  hint: r.hint,
  created: r.created.toISOString(),
  revoked: r.revoked?.toISOString() ?? null,
});

/** The account's keys, current and revoked, newest first; undefined when there is no such account. */
export async function listKeys(db: Db, accountId: string): Promise<ApiKeyInfo[] | undefined> {
  if (!(await getAccount(db, accountId))) return undefined;
  const rows = await db.query<KeyRow>("select id, live, hint, created, revoked from api_keys where account_id = $1 order by created desc, id", [accountId]);
  return rows.map(toKeyInfo);
}

/**
 * Rotation: a new key for the environment, and every current key of that environment revoked in the
 * same transaction, so the old key answers 401 from the next request on. Undefined when there is no
 * such account.
 */
export async function rotateKey(
  db: Db,
  accountId: string,
  environment: "test" | "live",
  now: Date,
): Promise<{ key: string; info: ApiKeyInfo; revoked: ApiKeyInfo[] } | undefined> {
  return db.tx(async (tx) => {
    const [account] = await tx.query<{ id: string }>("select id from accounts where id = $1 for update", [accountId]);
    if (!account) return undefined;
    const live = environment === "live";
    const revoked = await tx.query<KeyRow>(
      "update api_keys set revoked = $3 where account_id = $1 and live = $2 and revoked is null returning id, live, hint, created, revoked",
      [accountId, live, now],
    );
    await endKeySessions(tx, revoked.map((k) => k.id));
    const issued = await insertKey(tx, accountId, live, now);
    const [row] = await tx.query<KeyRow>("select id, live, hint, created, revoked from api_keys where id = $1", [issued.id]);
    return { key: issued.key, info: toKeyInfo(row!), revoked: revoked.map(toKeyInfo) };
  });
}

/** Revokes one key of the account at once (a revoked key stays revoked). Undefined when the account has no such key. */
export async function revokeKey(db: Db, accountId: string, keyId: string, now: Date): Promise<ApiKeyInfo | undefined> {
  return db.tx(async (tx) => {
    const [row] = await tx.query<KeyRow>(
      `update api_keys set revoked = coalesce(revoked, $3) where id = $2 and account_id = $1
       returning id, live, hint, created, revoked`,
      [accountId, keyId, now],
    );
    // Its dashboard sign-ins end with it, an open live feed included (it checks its session every tick).
    if (row) await endKeySessions(tx, [row.id]);
    return row && toKeyInfo(row);
  });
}
/** The account and environment a presented secret key belongs to, if it is a current key. */
export const findKey = (db: Db, key: string): Promise<KeyOwner | undefined> => byHash(db, sha256(key));

/** The same for a key named by its id (a dashboard session keeps the id, never the key). */
export const findKeyById = (db: Db, keyId: string): Promise<KeyOwner | undefined> =>
  // A malformed id (a session cookie is text) is no key; the batch's uuid cast would fail the round.
  uuid(keyId) === undefined ? byId(db, keyId.toLowerCase()) : Promise.resolve(undefined);

/**
 * The caller an account's own key becomes in one of its sandboxes (the `<SERVICE_NAME>-Sandbox` header, the
 * dashboard's environment switcher): the sandbox in the key's environment, still under the key's id.
 */
export async function findSandboxCaller(db: Db, owner: KeyOwner, sandboxId: string): Promise<KeyOwner | undefined> {
  if (uuid(sandboxId) !== undefined) return undefined;
  const [row] = await db.query<AccountRow & { parent_id: string; clock_frozen: boolean; clock_offset_ms: number }>(
    "select * from accounts where id = $1 and parent_id = $2",
    [sandboxId.toLowerCase(), owner.account.id],
  );
  return row && keyOwner({ ...row, key_id: owner.keyId, live: owner.live, hash: "" });
}
