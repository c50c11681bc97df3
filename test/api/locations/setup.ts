// The location tests' shared setup: a harness whose test networks answer onboarding, a program and a brand
// to put locations in, and a location's address.
import { afterAll, beforeAll } from "vitest";
import { createHarness, expectStatus, type Client, type Harness } from "../../support/harness.ts";
import { startRoles } from "../../../src/app/roles.ts";

type NetworkState = { status: string; mids: unknown[]; updated: string };
export type Location = {
  id: string;
  programId: string;
  brandId: string;
  address: string;
  city: string;
  postcode: string;
  countryCode: string;
  timezone: string;
  geolocation: { latitude: number; longitude: number } | null;
  metadata: unknown;
  live: boolean;
  status: { visa: NetworkState; mastercard: NetworkState; amex: NetworkState };
  created: string;
  updated: string;
};

/** A harness with its service clock frozen at 2026-01-05T12:00:00Z, and the roles that answer onboarding. */
export async function openLocationsHarness(): Promise<{ h: Harness; close: () => Promise<void> }> {
  const h = await createHarness();
  // The test networks answer onboarding over the bus; the workers store what they assign.
  const roles = await startRoles(h.services, ["simulators", "workers"]);
  return {
    h,
    close: async () => {
      await roles.stop();
      await h.close();
    },
  };
}

let current: Harness | undefined;

/** Opens the file's harness before its tests (handing it to `take`) and closes it after them. */
export function useLocationsHarness(take: (h: Harness) => void): void {
  let close: () => Promise<void>;
  beforeAll(async () => {
    let h: Harness;
    ({ h, close } = await openLocationsHarness());
    take((current = h));
  });
  afterAll(() => close());
}

/** A program and an approved brand in the client's environment. */
export async function setup(client: Client, live = false) {
  const h = current!;
  const programId = (await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Shops" }), 201)).id;
  const brandId = (await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Coffee" }), 201)).id;
  if (live) await expectStatus(await h.admin("POST", `/admin/brands/${brandId}/consent`, { decision: "approved" }), 200);
  return { programId, brandId };
}

export const address = (brandId: string, extra: Record<string, unknown> = {}) => ({
  address: "1 High Street",
  brandId,
  city: "London",
  countryCode: "GBR",
  postcode: "SW1A 1AA",
  ...extra,
});
