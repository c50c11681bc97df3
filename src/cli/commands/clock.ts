// `cardlink clock [advance …]`: an environment's time, read with its key (`GET /v1/clock`), and a sandbox's
// moved forward with a sandbox's key or the account's with --sandbox (`POST /v1/clock/advance`), which
// answers once what fell due in the sandbox has run and its webhooks are queued.
import { command, print, UsageError, wholeNumber } from "../args.ts";
import { instantOption } from "../instant-option.ts";

const text = { type: "string" } as const;
const UNITS = ["days", "hours", "minutes", "seconds"] as const;

interface Clock {
  now: string;
  frozen: boolean;
  sandbox: string | null;
  serviceNow: string;
}

const clockLines = (c: Clock) => [
  `now ${c.now}`,
  c.sandbox === null
    ? "the account's own environment: the service clock"
    : `sandbox ${c.sandbox}: ${c.frozen ? "frozen, it moves only when advanced" : "following the service clock"}`,
  `service time ${c.serviceNow}`,
];

export const clock = command({
  usage: `  clock [--json] [--key K] [--sandbox ID] [--url URL]
                            the time of the key's environment: a sandbox's own clock, or the service clock
  clock advance --days N|--hours N|--minutes N|--seconds N|--to ISO [--json] [--key K] [--sandbox ID] [--url URL]
                            move a sandbox's time forward (with its key, or the account's and --sandbox); answers
                            once what fell due in it has run and its webhooks are queued
`,
  options: {
    key: text,
    url: text,
    sandbox: text,
    days: text,
    hours: text,
    minutes: text,
    seconds: text,
    to: text,
    json: { type: "boolean", default: false },
  },
  positionals: true,
  async run({ values, positionals }, config) {
    const [sub, ...rest] = positionals;
    if (sub !== undefined && sub !== "advance") throw new UsageError("clock: the subcommand is advance, or none to read the clock (cardlink help clock shows its usage)");
    if (rest.length > 0) throw new UsageError(`clock ${sub}: takes no argument ${rest[0]}`);
    const given = UNITS.filter((u) => values[u] !== undefined);
    if (sub === undefined && (given.length > 0 || values.to !== undefined)) throw new UsageError(`--${given[0] ?? "to"}: moves the clock with \`clock advance\``);
    let body: { to: string } | Partial<Record<(typeof UNITS)[number], number>> | undefined;
    if (sub === "advance") {
      if (values.to !== undefined && given.length > 0) throw new UsageError(`clock advance: --to or --${UNITS.join("/--")}, not both`);
      if (values.to === undefined && given.length === 0) throw new UsageError("clock advance: say how far: --days N, --hours N, --minutes N, --seconds N or --to ISO");
      body = values.to !== undefined ? { to: instantOption("to", values.to) } : Object.fromEntries(given.map((u) => [u, wholeNumber(u, values[u], 1)]));
    }
    const { answer, connect } = await import("../connection.ts");
    const conn = connect(config, values);
    const now: Clock = body ? await answer(conn.url, conn.client.POST("/v1/clock/advance", { body })) : await answer(conn.url, conn.client.GET("/v1/clock"));
    print(values.json ? [JSON.stringify(now)] : clockLines(now));
  },
});
