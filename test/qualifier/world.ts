// The qualifier tests' world: a harness with the simulators and workers running for the file's tests, and the
// qualifier a test starts, stopped after it.
import { afterAll, afterEach, beforeAll } from "vitest";
import { createHarness, type Harness } from "../support/harness.ts";
import { startRoles, type RunningRoles } from "../../src/app/roles.ts";
import { startQualifier } from "../../src/qualifier/index.ts";
import type { Subscription } from "../../src/platform/bus/bus.ts";

export function useQualifierWorld(take: (h: Harness) => void): { start(deps: Parameters<typeof startQualifier>[0]): Promise<Subscription> } {
  let h: Harness | undefined;
  let roles: RunningRoles | undefined;
  let qualifier: Subscription | undefined;
  beforeAll(async () => {
    h = await createHarness();
    roles = await startRoles(h.services, ["simulators", "workers"]);
    take(h);
  });
  afterEach(async () => {
    await qualifier?.stop();
    qualifier = undefined;
  });
  afterAll(async () => {
    await roles?.stop();
    await h?.close();
  });
  return { start: async (deps) => (qualifier = await startQualifier(deps)) };
}
