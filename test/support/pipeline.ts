// A harness with background roles running (simulators, qualifier, dispatcher…) for one test file.
import { afterAll, beforeAll } from "vitest";
import { createHarness, type Harness } from "./harness.ts";
import { startRoles, type Role, type RoleOptions, type RunningRoles } from "../../src/app/roles.ts";

/** Starts the harness and the roles before the file's tests and stops them after; read `.h` inside tests. */
export function usePipeline(roles: readonly Role[], options: RoleOptions = {}): { readonly h: Harness } {
  let h: Harness | undefined;
  let running: RunningRoles | undefined;
  beforeAll(async () => {
    h = await createHarness();
    running = await startRoles(h.services, roles, options);
  });
  afterAll(async () => {
    await running?.stop();
    await h?.close();
  });
  return {
    get h() {
      if (!h) throw new Error("usePipeline: the harness starts in beforeAll");
      return h;
    },
  };
}
