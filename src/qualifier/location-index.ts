// The location index: every Active (location, scheme) by the MIDs a network message can carry, in memory.
// It reloads when the location index's version changes (services/index-versions.ts: triggers bump it when
// a location, its network status or MIDs, or its brand changes), so resolving a batch's locations costs
// no query beyond the batch's one version read, instead of a containment search per distinct MID.
// Size: one shared location row per location plus one map entry per MID form (six per location onboarded
// on all three schemes, keyed by program, scheme and MID): ≈ 380 MiB of V8 heap per 100k such locations,
// most of it the 600k key strings (docs/architecture.md, "Memory").
import type { Db } from "../platform/db.ts";
import type { NetworkTransaction } from "../services/transactions/index.ts";
import type { LocationWithBrand } from "../services/catalog/index.ts";
import { activeLocationNetworks } from "../services/catalog/index.ts";

export interface LocationIndex {
  /**
   * The location a message's merchant names in `programId`: the earliest created Active location of the
   * scheme whose MIDs contain the message's, as of `version` (the location index's version the caller
   * read; on a change the index reloads with `db`, inside the caller's transaction). Undefined when the
   * message carries no MID or none matches.
   */
  current(db: Db, version: number): Promise<(programId: string, tx: Pick<NetworkTransaction, "scheme" | "merchant">) => LocationWithBrand | undefined>;
}

type Mid = Record<string, unknown>;

/** The keys one stored MID answers to: each probe the qualifier makes for the scheme (see probeKey). */
function midKeys(scheme: string, mid: Mid): string[] {
  const s = (k: string) => (typeof mid[k] === "string" && mid[k] !== "" ? (mid[k] as string) : null);
  const keys: string[] = [];
  if (scheme === "visa") {
    const vmid = s("vmid");
    const vsid = s("vsid");
    if (vmid) keys.push(`vmid:${vmid}`);
    if (vmid && vsid) keys.push(`vmid:${vmid}|vsid:${vsid}`);
    if (s("visaAcquiringMid")) keys.push(`visaAcquiringMid:${s("visaAcquiringMid")}`);
  } else if (scheme === "mastercard") {
    if (s("mcLocationId")) keys.push(`mcLocationId:${s("mcLocationId")}`);
    if (s("mcAcquiringMid")) keys.push(`mcAcquiringMid:${s("mcAcquiringMid")}`);
  } else if (scheme === "amex") {
    if (s("seNumber")) keys.push(`seNumber:${s("seNumber")}`);
  }
  return keys;
}

/**
 * The key of the MID a message names: Visa's VMID (with its VSID when the message has one) else the
 * acquiring MID; Mastercard's location id else the acquiring MID; Amex's SE number.
 */
export function probeKey(tx: Pick<NetworkTransaction, "scheme" | "merchant">): string | null {
  const m = tx.merchant;
  switch (tx.scheme) {
    case "visa":
      return m.vmid ? (m.vsid ? `vmid:${m.vmid}|vsid:${m.vsid}` : `vmid:${m.vmid}`) : m.visaAcquiringMid ? `visaAcquiringMid:${m.visaAcquiringMid}` : null;
    case "mastercard":
      return m.mcLocationId ? `mcLocationId:${m.mcLocationId}` : m.mcAcquiringMid ? `mcAcquiringMid:${m.mcAcquiringMid}` : null;
    case "amex":
      return m.seNumber ? `seNumber:${m.seNumber}` : null;
  }
}

export function createLocationIndex(): LocationIndex {
  let version = -1;
  let byMid = new Map<string, LocationWithBrand>();

  async function reload(db: Db, next: number) {
    const rows = await activeLocationNetworks(db);
    const map = new Map<string, LocationWithBrand>();
    const shared = new Map<string, LocationWithBrand>();
    for (const { scheme, mids, ...row } of rows) {
      let location = shared.get(row.id);
      if (!location) shared.set(row.id, (location = row as LocationWithBrand));
      for (const mid of mids ?? []) {
        for (const key of midKeys(scheme, mid)) {
          const k = `${location.program_id}|${scheme}|${key}`;
          // Rows come oldest first: the earliest created location keeps a MID two locations share.
          if (!map.has(k)) map.set(k, location);
        }
      }
    }
    byMid = map;
    version = next;
  }

  return {
    async current(db, next) {
      if (next !== version) await reload(db, next);
      const index = byMid;
      return (programId, tx) => {
        const key = probeKey(tx);
        return key === null ? undefined : index.get(`${programId}|${tx.scheme}|${key}`);
      };
    },
  };
}
