// `cardlink sandbox create|list|delete`: an account's sandboxes, with the account's own key — isolated
// environments with their own keys, records and clock (docs/sandboxes.md).
import { randomBytes } from "node:crypto";
import { UUID_PATTERN } from "../../platform/ids.ts";
import { command, print, UsageError, wholeNumber } from "../args.ts";
import { instantOption } from "../instant-option.ts";

const text = { type: "string" } as const;

/** Whether a sandbox's clock follows the service clock or stands still. */
const clockWords = (clock: { now: string; frozen: boolean }) => `${clock.now} (${clock.frozen ? "frozen: it moves only when advanced" : "following the service clock"})`;

export const sandbox = command({
  usage: `  sandbox create [--name N] [--frozen] [--at ISO] [--expires-in SECONDS] [--json] [--key K] [--url URL]
                            make a sandbox of the key's account: its own test and live keys (printed once),
                            records and clock, which starts at the service time, at --at, frozen with
                            --frozen; deleted after --expires-in seconds (default a day, at most 30 days)
  sandbox list [--json] [--key K] [--url URL]
                            the account's sandboxes: id, name, clock and expiry
  sandbox delete ID [--key K] [--url URL]
                            delete a sandbox and its records; its keys answer 401 at once
`,
  options: {
    key: text,
    url: text,
    name: text,
    at: text,
    "expires-in": text,
    frozen: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
  positionals: true,
  async run({ values, positionals }, config) {
    const [sub, id, ...rest] = positionals;
    if (sub !== "create" && sub !== "list" && sub !== "delete") throw new UsageError("sandbox: the subcommand is create, list or delete (cardlink help sandbox shows its usage)");
    if (sub === "delete" ? id === undefined || !UUID_PATTERN.test(id) : id !== undefined) {
      throw new UsageError(sub === "delete" ? "sandbox delete: name the sandbox's id (UUID), as `sandbox list` prints it" : `sandbox ${sub}: takes no argument ${id}`);
    }
    if (rest.length > 0) throw new UsageError(`sandbox ${sub}: takes no argument ${rest[0]}`);
    const { answer, connect } = await import("../connection.ts");

    if (sub === "create") {
      const name = values.name ?? `sandbox-${randomBytes(3).toString("hex")}`;
      const at = values.at === undefined ? undefined : instantOption("at", values.at);
      const expiresIn = values["expires-in"] === undefined ? undefined : wholeNumber("expires-in", values["expires-in"], 60, 2_592_000);
      const conn = connect(config, values);
      const clock = { ...(at ? { at } : {}), ...(values.frozen ? { frozen: true } : {}) };
      const made = await answer(
        conn.url,
        conn.client.POST("/v1/sandboxes", { body: { name, ...(Object.keys(clock).length ? { clock } : {}), ...(expiresIn ? { expiresIn } : {}) } }),
      );
      if (values.json) return print([JSON.stringify(made)]);
      return print([
        `sandbox ${made.id} ${made.name}, expires ${made.expiresAt}`,
        `clock: ${clockWords(made.clock)}`,
        `test key (shown once): ${made.keys.test}`,
        `live key (shown once): ${made.keys.live}`,
      ]);
    }

    const conn = connect(config, values);
    if (sub === "delete") {
      await answer(conn.url, conn.client.DELETE("/v1/sandboxes/{sandboxId}", { params: { path: { sandboxId: id! } } }));
      return print([`deleted sandbox ${id}: its records are gone, and its keys answer 401 from now on`]);
    }
    const items = [];
    let start: string | undefined;
    do {
      const page = await answer(conn.url, conn.client.GET("/v1/sandboxes", { params: { query: { ...(start ? { start } : {}) } } }));
      items.push(...page.items);
      start = page.last;
    } while (start);
    if (values.json) return print([JSON.stringify(items)]);
    print(items.map((s) => `${s.id} ${s.name} clock ${clockWords(s.clock)}, expires ${s.expiresAt}`));
  },
});
