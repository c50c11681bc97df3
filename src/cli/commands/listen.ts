// `cardlink listen`: with `--secret`, a receiver for hooks you registered yourself. Otherwise it
// configures itself: it registers its own hooks for the chosen events on the program — the fixtures
// program of `trigger` unless --program names another — all signed with one secret it keeps and prints
// (so a --forward-to server verifies what it is sent), and removes them on exit unless --keep. A client of a
// running Cardlink: it holds none of the service's parts, only its receiver (src/cli/receiver.ts) and its hooks.
import type { Server } from "node:http";
import type { HookEvent } from "../../services/webhooks/index.ts";
import { command, CommandError, UsageError } from "../args.ts";
import { cardlinkCommand } from "../invocation.ts";

const out = (line: string) => void process.stdout.write(`${line}\n`);
const err = (line: string) => void process.stderr.write(`${line}\n`);

/** Closes the server and ends the process on SIGINT or SIGTERM, after `before` (removing the hooks). */
function stopOnSignal(server: Server, before: () => Promise<void> = () => Promise.resolve()) {
  const stop = () => void before().finally(() => server.close(() => process.exit(0)));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

export const listen = command({
  usage: `  listen [--key K] [--sandbox ID] [--program ID] [--events E,…] [--forward-to URL] [--port 4000] [--keep] [--url URL] [--print-json]
                            receive webhooks locally: registers its own hooks for the events (every one unless
                            --events) on the program (the fixtures program of trigger unless --program), all
                            signed with one secret it prints at start, verifies each signature, prints one line
                            per event (--print-json: each event's body, status lines on stderr), forwards the
                            signed request unchanged with --forward-to and prints the answer; removes its hooks
                            on exit unless --keep; a sandbox's key, or the account's with --sandbox, listens
                            in that sandbox
  listen --print-secret     print listen's signing secret (kept in DATA_DIR/credentials.json) and exit
  listen --secret whsec_… [--secret …] [--port 4000] [--forward-to URL] [--print-json]
                            receive deliveries of hooks you registered yourself, printing each verified body
`,
  options: {
    port: { type: "string", default: "4000" },
    secret: { type: "string", multiple: true },
    key: { type: "string" },
    sandbox: { type: "string" },
    url: { type: "string" },
    program: { type: "string" },
    events: { type: "string", multiple: true },
    "forward-to": { type: "string" },
    keep: { type: "boolean", default: false },
    "print-secret": { type: "boolean", default: false },
    "print-json": { type: "boolean", default: false },
  },
  async run({ values }, config) {
    const { listenSecret, registerOwnHooks, removeHooks } = await import("../own-hooks.ts");
    if (values["print-secret"]) return out(listenSecret(config));
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError("--port: must be a port number");
    const forwardTo = values["forward-to"];
    if (forwardTo !== undefined && !/^https?:\/\/[^/]+/.test(forwardTo)) throw new UsageError("--forward-to: must be an http(s) URL such as http://localhost:8080/webhooks");
    // Under --print-json stdout is one JSON document a line: the status lines go to stderr.
    const json = values["print-json"];
    const status = json ? err : out;
    const [{ listen: receive }, { HOOK_EVENTS }, { answer, connect }] = await Promise.all([
      import("../receiver.ts"),
      import("../../services/webhooks/hooks.ts"),
      import("../connection.ts"),
    ]);
    /** The receiver on `port`; a port in use is one line naming --port. */
    const listenOn = (options: Omit<Parameters<typeof receive>[0], "port" | "out" | "info" | "forwardTo">) =>
      receive({ port, out, info: status, forwardTo, ...options }).catch((e: unknown) => {
        if ((e as NodeJS.ErrnoException).code === "EADDRINUSE") throw new CommandError(`--port ${port}: already in use by another process; choose a free port with --port`);
        throw e;
      });

    if (values.secret?.length) {
      const secrets = values.secret;
      const server = await listenOn({ secrets: () => secrets, format: json ? "json" : "body" });
      status(`listening for webhooks on http://localhost:${port}/ (any path)`);
      return stopOnSignal(server);
    }

    const events = (values.events ?? [...HOOK_EVENTS]).flatMap((e) => e.split(",")).map((e) => e.trim()).filter(Boolean);
    const unknown = events.filter((e) => !(HOOK_EVENTS as readonly string[]).includes(e));
    if (unknown.length > 0) throw new UsageError(`--events: unknown ${unknown.join(", ")}; events are ${HOOK_EVENTS.join(", ")}`);
    const conn = connect(config, values);
    let programId = values.program;
    if (!programId) {
      if (conn.live) throw new UsageError("--program: required with a live key (the fixtures program is a test-environment one)");
      programId = (await answer(conn.url, conn.client.POST("/v1/trigger/fixtures"))).programId;
    }

    const secret = listenSecret(config);
    const server = await listenOn({ secrets: () => [secret], format: json ? "json" : "summary" });
    const hookUrl = `http://localhost:${(server.address() as { port: number }).port}/`;
    let used: string[];
    try {
      used = await registerOwnHooks(conn, programId, events as HookEvent[], hookUrl, secret);
    } catch (e) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw e;
    }
    status(
      `listening on ${hookUrl} for ${events.length === HOOK_EVENTS.length ? "every event" : events.join(", ")} of program ${programId} ` +
        `(${used.length} hooks${values.keep ? ", kept on exit" : ", removed on exit"})${forwardTo ? `, forwarding to ${forwardTo}` : ""}`,
    );
    status(`signing secret: ${secret} (the same for every hook of this listener; \`listen --print-secret\` prints it)`);
    status(`ready: in another terminal, ${cardlinkCommand("trigger transaction.auth.qualified")}`);
    stopOnSignal(server, () => (values.keep ? Promise.resolve() : removeHooks(conn, used)));
  },
});
