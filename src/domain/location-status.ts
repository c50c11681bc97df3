// Where a location starts in each scheme's sync: the first row of the spec's "Location status per scheme".
export const NETWORK_STATUSES = ["Idle", "Syncing", "Active", "Not found"] as const;
export type NetworkStatus = (typeof NETWORK_STATUSES)[number];

/**
 * Live locations start Idle, or Syncing when created with `status: syncing`. Test locations are
 * Active on every scheme at once: the test environment has no networks to wait for.
 */
export function initialNetworkStatus(live: boolean, syncRequested: boolean): NetworkStatus {
  if (!live) return "Active";
  return syncRequested ? "Syncing" : "Idle";
}
