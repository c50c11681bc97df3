// `cardlink keys list|rotate|revoke`: the operator's key management over /admin on the running service.
import { parseArgs } from "node:util";
import type { Config } from "../config/index.ts";
import { createAdminClient } from "../../clients/typescript/src/index.ts";
import { UUID_PATTERN } from "../services/ids.ts";
import { adminToken, answer, serverUrl, type Usage } from "./connection.ts";

export async function keysCommand(args: string[], config: Config, usage: Usage): Promise<string[]> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { account: { type: "string" }, env: { type: "string" }, "key-id": { type: "string" }, url: { type: "string" } },
  });
  const sub = positionals[0];
  if (sub !== "list" && sub !== "rotate" && sub !== "revoke") throw usage("keys: the subcommand is list, rotate or revoke");
  const accountId = values.account;
  if (!accountId || !UUID_PATTERN.test(accountId)) throw usage("--account: must be an account id (UUID)");
  const url = serverUrl(values.url, process.env, usage, config.DATA_DIR);
  const admin = createAdminClient({ baseUrl: url, adminToken: adminToken(config, usage) });
  const path = { accountId };
  if (sub === "list") {
    const { items } = await answer(url, admin.GET("/admin/accounts/{accountId}/keys", { params: { path } }));
    return items.map((k) => `${k.id} ${k.environment} …${k.hint} created ${k.created}${k.revoked ? ` revoked ${k.revoked}` : ""}`);
  }
  if (sub === "rotate") {
    if (values.env !== "test" && values.env !== "live") throw usage("--env: must be test or live");
    const rotated = await answer(url, admin.POST("/admin/accounts/{accountId}/keys/rotate", { params: { path }, body: { environment: values.env } }));
    return [
      `new ${rotated.environment} key (shown once): ${rotated.key}`,
      ...rotated.revokedKeys.map((k) => `revoked ${k.id} …${k.hint}: it answers 401 from now on`),
    ];
  }
  const keyId = values["key-id"];
  if (!keyId || !UUID_PATTERN.test(keyId)) throw usage("--key-id: must be a key id (UUID) from `keys list`");
  const revoked = await answer(url, admin.DELETE("/admin/accounts/{accountId}/keys/{keyId}", { params: { path: { accountId, keyId } } }));
  return [`revoked ${revoked.id} …${revoked.hint} at ${revoked.revoked}: it answers 401 from now on`];
}
