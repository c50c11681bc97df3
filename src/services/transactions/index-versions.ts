// The versions of the live-offer and location indexes: triggers bump them on every write the indexes
// depend on (migration 010), so a reader holding an in-memory copy learns in one tiny query (or as part of
// the qualifier's first read) whether it is still current.
import type { Db } from "../../platform/db.ts";
import { RECORDED_MESSAGES, recordedKeys, recordedParams, type MessageKey } from "./messages.ts";

export interface IndexVersions {
  offers: number;
  locations: number;
}

const VERSIONS = "(select version from offer_index_version) as offers, (select version from location_index_version) as locations";

const versionsOf = (row: { offers: number; locations: number }): IndexVersions => ({ offers: Number(row.offers), locations: Number(row.locations) });

export async function indexVersions(db: Db): Promise<IndexVersions> {
  const [row] = await db.query<{ offers: number; locations: number }>(`select ${VERSIONS}`);
  return versionsOf(row!);
}

/**
 * Which of a batch's messages are already recorded (by `messageKey`), and the index versions, in one
 * statement: what a batch of network messages reads first, so the versions cost it no statement of their own.
 */
export async function recordedWithVersions(db: Db, keys: MessageKey[]): Promise<{ recorded: Set<string>; versions: IndexVersions }> {
  const [row] = await db.query<{ offers: number; locations: number; recorded: { scheme: string; message_id: string }[] }>(
    `select ${VERSIONS}, (select coalesce(json_agg(r), '[]'::json) from (${RECORDED_MESSAGES}) r) as recorded`,
    recordedParams(keys),
  );
  return { recorded: recordedKeys(row!.recorded), versions: versionsOf(row!) };
}
