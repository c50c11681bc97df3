// Local credentials in DATA_DIR/credentials.json (mode 0600): the generated admin token and the demo
// account's keys, so `npm start` can print them again and the CLI commands find a key and a token without
// flags. The database keeps only key digests. The local half of the configuration: ADMIN_TOKEN wins over it.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./index.ts";
import { randomBase62 } from "../ids.ts";

export interface LocalCredentials {
  adminToken?: string;
  demo?: { accountId: string; test: string; live: string };
  /** The one signing secret of `cardlink listen`'s hooks (src/cli/own-hooks.ts). */
  listenSecret?: string;
}

const credentialsPath = (config: Config) => join(config.DATA_DIR, "credentials.json");

export function readCredentials(config: Config): LocalCredentials {
  const path = credentialsPath(config);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as LocalCredentials) : {};
}

export function writeCredentials(config: Config, credentials: LocalCredentials): void {
  mkdirSync(config.DATA_DIR, { recursive: true, mode: 0o700 });
  const path = credentialsPath(config);
  writeFileSync(path, JSON.stringify(credentials, null, 2) + "\n", { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** After a rotation of the demo account's key, keeps credentials.json current for `npm start`, `trigger` and `listen`. */
export function rememberDemoKey(config: Config, accountId: string, environment: "test" | "live", key: string): void {
  const credentials = readCredentials(config);
  if (credentials.demo?.accountId !== accountId) return;
  writeCredentials(config, { ...credentials, demo: { ...credentials.demo, [environment]: key } });
}

/** The admin token a CLI command calls /admin with: ADMIN_TOKEN, or the one `npm start` generated and kept. */
export const knownAdminToken = (config: Config): string | undefined => config.ADMIN_TOKEN ?? readCredentials(config).adminToken;

/** ADMIN_TOKEN when set; otherwise the token generated on the first start and kept locally. */
export function resolveAdminToken(config: Config): { token: string; generated: boolean } {
  const known = knownAdminToken(config);
  if (known) return { token: known, generated: false };
  const token = `adm_${randomBase62(32)}`;
  writeCredentials(config, { ...readCredentials(config), adminToken: token });
  return { token, generated: true };
}
