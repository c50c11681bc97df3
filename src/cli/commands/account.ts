// `cardlink account create`: an account with its test and live keys, through the running server's /admin
// API when one holds DATA_DIR (its embedded database is not shared), else on a system of its own.
import { command, UsageError } from "../args.ts";

export const account = command({
  usage: `  account create [--name N] [--tier standard|premium] [--email E] [--json]
                            create an account with test and live secret keys
`,
  options: {
    name: { type: "string", default: "Publisher" },
    tier: { type: "string", default: "standard" },
    email: { type: "string" },
    json: { type: "boolean", default: false },
  },
  positionals: true,
  async run({ values, positionals }, config) {
    if (positionals[0] !== "create") throw new UsageError("account: the subcommand is create (cardlink help account shows its usage)");
    if (values.tier !== "standard" && values.tier !== "premium") throw new UsageError("--tier: must be standard or premium");
    const tier: "standard" | "premium" = values.tier;
    const input = { name: values.name, tier, ...(values.email ? { email: values.email } : {}) };
    const { answer, dataDirServer } = await import("../connection.ts");
    const server = dataDirServer(config);
    const created = server
      ? await answer(server.url, server.admin.POST("/admin/accounts", { body: input }))
      : await (await import("../../app/system.ts")).withSystem(config, "account create", async ({ services }) =>
          (await import("../../services/accounts/accounts.ts")).createAccount(services.db, input, services.clock.now()),
        );
    process.stdout.write(
      values.json
        ? JSON.stringify(created) + "\n"
        : `account ${created.id} (${created.tier})\n  test key: ${created.keys.test}\n  live key: ${created.keys.live}\n`,
    );
  },
});
