// `cardlink keys list|rotate|revoke`: the operator's key management over /admin on the running service.
import { UUID_PATTERN } from "../../platform/ids.ts";
import { command, print, UsageError } from "../args.ts";

const text = { type: "string" } as const;

export const keys = command({
  usage: `  keys list|rotate|revoke --account ID [--env test|live] [--key-id ID] [--url URL]
                            list an account's keys, rotate the key of an environment (the old one answers 401
                            at once) or revoke one key; needs ADMIN_TOKEN or the one npm start keeps
`,
  options: { account: text, env: text, "key-id": text, url: text },
  positionals: true,
  async run({ values, positionals }, config) {
    const sub = positionals[0];
    if (sub !== "list" && sub !== "rotate" && sub !== "revoke") throw new UsageError("keys: the subcommand is list, rotate or revoke (cardlink help keys shows its usage)");
    const accountId = values.account;
    if (!accountId || !UUID_PATTERN.test(accountId)) throw new UsageError("--account: must be an account id (UUID)");
    const { answer, connectAdmin } = await import("../connection.ts");
    const { url, admin } = connectAdmin(config, values);
    const path = { accountId };
    if (sub === "list") {
      const { items } = await answer(url, admin.GET("/admin/accounts/{accountId}/keys", { params: { path } }));
      return print(items.map((k) => `${k.id} ${k.environment} …${k.hint} created ${k.created}${k.revoked ? ` revoked ${k.revoked}` : ""}`));
    }
    if (sub === "rotate") {
      if (values.env !== "test" && values.env !== "live") throw new UsageError("--env: must be test or live");
      const rotated = await answer(url, admin.POST("/admin/accounts/{accountId}/keys/rotate", { params: { path }, body: { environment: values.env } }));
      return print([
        `new ${rotated.environment} key (shown once): ${rotated.key}`,
        ...rotated.revokedKeys.map((k) => `revoked ${k.id} …${k.hint}: it answers 401 from now on`),
      ]);
    }
    const keyId = values["key-id"];
    if (!keyId || !UUID_PATTERN.test(keyId)) throw new UsageError("--key-id: must be a key id (UUID) from `keys list`");
    const revoked = await answer(url, admin.DELETE("/admin/accounts/{accountId}/keys/{keyId}", { params: { path: { accountId, keyId } } }));
    print([`revoked ${revoked.id} …${revoked.hint} at ${revoked.revoked}: it answers 401 from now on`]);
  },
});
