// The commands that run the service until a signal: `start` (everything in one process), `api`, one
// background role. Each opens its system, starts its parts and hands the rest to closeOnSignal. (A scheme's
// simulator is a process of other parts: src/app/simulator.ts.)
import type { Config } from "../config/index.ts";
import { readCredentials, resolveAdminToken, writeCredentials } from "../config/credentials.ts";
import { createAccount, getAccount } from "../services/accounts.ts";
import type { Usage } from "../cli/connection.ts";
import { ALL_ROLES } from "./roles.ts";
import type { Services } from "./services.ts";
import { openSystem } from "./system.ts";
import { checkPortFree } from "./port.ts";

/** The demo account whose keys `npm start` prints, made on the first start and kept in credentials.json. */
async function ensureDemoAccount(services: Services, config: Config) {
  const credentials = readCredentials(config);
  if (credentials.demo && (await getAccount(services.db, credentials.demo.accountId))) return credentials.demo;
  const account = await createAccount(services.db, { name: "Demo publisher", tier: "premium" }, services.clock.now());
  const demo = { accountId: account.id, ...account.keys };
  writeCredentials(config, { ...readCredentials(config), demo });
  return demo;
}

export async function startCommand(config: Config): Promise<void> {
  await checkPortFree(config.PORT);
  const system = await openSystem(config, { command: "start", bus: true });
  await system.startRoles(ALL_ROLES);
  const admin = resolveAdminToken(config);
  const demo = await ensureDemoAccount(system.services, config);
  const { url } = await system.serveApi(admin.token);
  system.closeOnSignal();
  const name = config.SERVICE_NAME;
  process.stdout.write(
    [
      ``,
      `${name} is running at ${url}  (docs: ${url}/docs, OpenAPI: ${url}/v1/openapi.json)`,
      `  dashboard:    ${url}/dashboard  (sign in with the test key below, or the admin token for the operator pages)`,
      `  storage:      ${config.DATABASE_URL ? "PostgreSQL" : `PGlite in ${config.DATA_DIR}`}`,
      `  admin token:  ${admin.token}`,
      `  demo account: ${demo.accountId} (premium)`,
      `    test key:   ${demo.test}`,
      `    live key:   ${demo.live}`,
      `  try: curl -H '${name}-Key: ${demo.test}' ${url}/v1/programs`,
      `  webhooks: npm run cardlink -- listen   (second terminal), then   npm run cardlink -- trigger transaction.auth.qualified`,
      ``,
    ].join("\n") + "\n",
  );
}

export async function apiCommand(config: Config): Promise<void> {
  await checkPortFree(config.PORT);
  const system = await openSystem(config, { command: "api", bus: true });
  const server = await system.serveApi(resolveAdminToken(config).token);
  system.closeOnSignal();
  system.services.log.info({ url: server.url }, "api listening");
}

export async function roleCommand(role: "qualifier" | "dispatcher" | "workers", config: Config, usage: Usage): Promise<void> {
  if (role === "qualifier" && !config.KAFKA_BROKERS) {
    throw usage("qualifier: set KAFKA_BROKERS (npm start runs the qualifier on the embedded log)");
  }
  const system = await openSystem(config, { command: role, bus: true });
  await system.startRoles([role]);
  const healthPort = await system.serveHealth(role);
  system.closeOnSignal();
  system.services.log.info({ role, ...(healthPort ? { healthPort } : {}) }, "role running");
}
