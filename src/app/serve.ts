// The commands that run the service until a signal: `start` (everything in one process), `api`, one
// background role. Each opens its system, starts its parts and hands the rest to closeOnSignal. (A scheme's
// simulator is a process of other parts: src/app/simulator.ts.)
import { join } from "node:path";
import { isLoopbackHost, type Config } from "../config/index.ts";
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
  // The API's port answers /health and /metrics; HEALTH_PORT, when set, answers them too, as every role's does.
  await system.serveHealth("start");
  system.closeOnSignal();
  process.stdout.write(startBanner(config, url, admin, demo));
}

/**
 * What `npm start` prints. On a loopback HOST (the quick start) it shows the admin token and the demo keys;
 * on any other HOST, where the terminal's output may end up in shared logs, it says where they are kept
 * (DATA_DIR/credentials.json, mode 0600) instead.
 */
export function startBanner(
  config: Config,
  url: string,
  admin: { token: string; generated: boolean },
  demo: { accountId: string; test: string; live: string },
): string {
  const name = config.SERVICE_NAME;
  const shown = isLoopbackHost(config.HOST);
  const kept = join(config.DATA_DIR, "credentials.json");
  const secrets = shown
    ? [
        `  admin token:  ${admin.token}`,
        `  demo account: ${demo.accountId} (premium)`,
        `    test key:   ${demo.test}`,
        `    live key:   ${demo.live}`,
        `  try: curl -H '${name}-Key: ${demo.test}' ${url}/v1/programs`,
      ]
    : [
        `  admin token:  ${config.ADMIN_TOKEN ? "from ADMIN_TOKEN" : `in ${kept}`} (not printed: HOST ${config.HOST} is not loopback)`,
        `  demo account: ${demo.accountId} (premium); its keys are in ${kept}`,
      ];
  return (
    [
      ``,
      `${name} is running at ${url}  (docs: ${url}/docs, OpenAPI: ${url}/v1/openapi.json)`,
      `  dashboard:    ${url}/dashboard  (sign in with the demo test key, or the admin token for the operator pages)`,
      `  storage:      ${config.DATABASE_URL ? "PostgreSQL" : `PGlite in ${config.DATA_DIR}`}`,
      `  metrics:      ${url}/metrics  (Prometheus: per-hop timings, requests, batches, lag, deliveries)`,
      ...secrets,
      `  webhooks: npm run cardlink -- listen   (second terminal), then   npm run cardlink -- trigger transaction.auth.qualified`,
      ``,
    ].join("\n") + "\n"
  );
}

export async function apiCommand(config: Config): Promise<void> {
  await checkPortFree(config.PORT);
  const system = await openSystem(config, { command: "api", bus: true });
  const server = await system.serveApi(resolveAdminToken(config).token);
  await system.serveHealth("api");
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
