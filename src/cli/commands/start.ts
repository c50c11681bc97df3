// `cardlink start`: the API and every background role in one process (the embedded defaults), the demo
// account made on the first start, and the banner with what to try (src/cli/banner.ts: apart, so that
// `help`, which loads every command for its usage, does not load the config's schema with it).
import type { Config } from "../../platform/config/index.ts";
import { readCredentials, resolveAdminToken, writeCredentials } from "../../platform/config/credentials.ts";
import type { Runtime } from "../../app/runtime.ts";
import { command } from "../args.ts";

/** The demo account whose keys `npm start` prints, made on the first start and kept in credentials.json. */
async function ensureDemoAccount(services: Runtime, config: Config) {
  const { createAccount, getAccount } = await import("../../services/accounts/accounts.ts");
  const credentials = readCredentials(config);
  if (credentials.demo && (await getAccount(services.db, credentials.demo.accountId))) return credentials.demo;
  const account = await createAccount(services.db, { name: "Demo publisher", tier: "premium" }, services.clock.now());
  const demo = { accountId: account.id, ...account.keys };
  writeCredentials(config, { ...readCredentials(config), demo });
  return demo;
}

export const start = command({
  usage: `  start                     API and every background role in one process (embedded defaults)
`,
  options: {},
  async run(_parsed, config) {
    const [{ checkPortFree }, { openSystem }, { ALL_ROLES }, { startBanner }] = await Promise.all([
      import("../../app/port.ts"),
      import("../../app/system.ts"),
      import("../../app/roles.ts"),
      import("../banner.ts"),
    ]);
    await checkPortFree(config.PORT);
    const system = await openSystem(config, { command: "start", bus: true });
    await system.startRoles(ALL_ROLES);
    const admin = resolveAdminToken(config);
    const demo = await ensureDemoAccount(system.services, config);
    const { url } = await system.serveApi(admin.token);
    // The API's port answers /health and /metrics; HEALTH_PORT, when set, answers them too, as every role's does.
    await system.serveHealth("start");
    system.closeOnSignal();
    process.stdout.write(startBanner(config, url, admin, demo));
  },
});
