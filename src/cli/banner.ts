// What `cardlink start` prints once the service is up: where it runs, what to try, and the demo keys when
// the terminal is private enough to show them.
import { join } from "node:path";
import { isLoopbackHost, type Config } from "../platform/config/index.ts";
import { cardlinkCommand } from "./invocation.ts";

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
      `  webhooks: ${cardlinkCommand("listen")}   (second terminal), then   ${cardlinkCommand("trigger transaction.auth.qualified")}`,
      ``,
    ].join("\n") + "\n"
  );
}
