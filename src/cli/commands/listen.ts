// `cardlink listen`: with `--secret`, a receiver for hooks you registered yourself. Otherwise it
// configures itself: it registers its own hooks for the chosen events on the program — the fixtures
// program of `trigger` unless --program names another — all signed with one secret it keeps and prints
// (so a --forward-to server verifies what it is sent), and removes them on exit unless --keep. With --since or
// --resume it first shows the program's events it missed (src/cli/catch-up.ts), then goes on live. A client
// of a running Cardlink: it holds none of the service's parts, only its receiver (src/cli/receiver.ts) and its hooks.
import type { Server } from "node:http";
import type { HookEvent } from "../../services/webhooks/index.ts";
import type { Config } from "../../platform/config/index.ts";
import type { PositionKeeper, Seam, sinceOption } from "../catch-up.ts";
import type { Connection } from "../connection.ts";
import type { presenter } from "../receiver.ts";
import { command, CommandError, UsageError } from "../args.ts";
import { cardlinkCommand } from "../invocation.ts";

const out = (line: string) => void process.stdout.write(`${line}\n`);
const err = (line: string) => void process.stderr.write(`${line}\n`);

type Since = ReturnType<typeof sinceOption>;

/** --events' names, repeated or comma-separated (every event unless given); an unknown one is a usage mistake. */
function eventsOption(given: string[] | undefined, all: readonly string[]): string[] {
  const events = (given ?? [...all]).flatMap((e) => e.split(",")).map((e) => e.trim()).filter(Boolean);
  const unknown = events.filter((e) => !all.includes(e));
  if (unknown.length > 0) throw new UsageError(`--events: unknown ${unknown.join(", ")}; events are ${all.join(", ")}`);
  return events;
}

/** Closes the server and ends the process on SIGINT or SIGTERM, after `before` (removing the hooks). */
function stopOnSignal(server: Server, before: () => Promise<void> = () => Promise.resolve()) {
  const stop = () => void before().finally(() => server.close(() => process.exit(0)));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/**
 * Where a listener of the program starts: --since's instant, the last listener's position with --resume,
 * else now (kept, so that a later --resume shows what this one did not); the events it showed are the seam's.
 */
async function startingPoint(config: Config, conn: Connection, programId: string, since: Since | undefined, resume: boolean) {
  const { PositionKeeper, Seam, environmentNow, positionKey, readPosition } = await import("../catch-up.ts");
  const key = positionKey(conn, programId);
  const saved = resume ? readPosition(config, key) : undefined;
  const now = await environmentNow(conn);
  const from = since ? ("instant" in since ? since.instant : new Date(Date.parse(now) - since.spanMs).toISOString()) : (saved?.through ?? now);
  const position = new PositionKeeper(config, key, { through: from, shown: saved?.shown ?? [] });
  const seam = new Seam();
  for (const id of saved?.shown ?? []) seam.first(id);
  return { saved, from, position, seam };
}

/** Shows (and forwards, signed with the listener's secret) the program's events since `from`, oldest first. */
async function catchUp(
  conn: Connection,
  programId: string,
  from: string,
  listener: { events: readonly string[]; seam: Seam; position: PositionKeeper; secret: string; present: ReturnType<typeof presenter> },
  status: (line: string) => void,
) {
  const { pastEvents } = await import("../catch-up.ts");
  const { signedHeaders } = await import("../../dispatcher/sign.ts");
  const { events, seam, position, secret, present } = listener;
  status(`catching up on the events since ${from}`);
  // The hooks are registered first, so nothing falls between the list read here and the live deliveries;
  // an event in both is shown once (the seam), and live ones wait until the past ones are shown.
  const past = await pastEvents(conn, programId, from);
  let caught = 0;
  for (const event of past) {
    if (!events.includes(event.event) || !seam.first(event.id)) continue;
    const body = JSON.stringify({ id: event.id, event: event.event, created: event.created, data: event.data });
    await present({ ...event, receivedAt: performance.now(), path: "/" }, body, signedHeaders(secret, event.id, body));
    caught++;
  }
  position.caughtUp(past);
  status(`caught up: ${caught} event${caught === 1 ? "" : "s"} since ${from}; live from here on`);
}

export const listen = command({
  usage: `  listen [--key K] [--sandbox ID] [--program ID] [--events E,…] [--forward-to URL] [--port 4000] [--keep] [--url URL] [--print-json]
         [--since 1h|INSTANT | --resume]
                            receive webhooks locally: registers its own hooks for the events (every one unless
                            --events) on the program (the fixtures program of trigger unless --program), all
                            signed with one secret it prints at start, verifies each signature, prints one line
                            per event (--print-json: each event's body, status lines on stderr), forwards the
                            signed request unchanged with --forward-to and prints the answer; removes its hooks
                            on exit unless --keep; a sandbox's key, or the account's with --sandbox, listens
                            in that sandbox. --since 90s|15m|1h|2d or an instant first shows (and forwards, signed)
                            the program's events since then, oldest first, then goes on live, no event twice;
                            --resume does so from where the last listener of the program stopped (kept in
                            DATA_DIR/listen-positions.json)
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
    since: { type: "string" },
    resume: { type: "boolean", default: false },
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

    if (values.since !== undefined && values.resume) throw new UsageError("--since, --resume: give one (--resume goes on from where the last listener stopped)");
    const { sinceOption } = await import("../catch-up.ts");
    const since = values.since === undefined ? undefined : sinceOption(values.since);

    if (values.secret?.length) {
      if (since || values.resume) throw new UsageError(`--${since ? "since" : "resume"}: catches up on its own hooks' program, not with --secret`);
      const secrets = values.secret;
      const server = await listenOn({ secrets: () => secrets, format: json ? "json" : "body" });
      status(`listening for webhooks on http://localhost:${port}/ (any path)`);
      return stopOnSignal(server);
    }

    const events = eventsOption(values.events, HOOK_EVENTS);
    const conn = connect(config, values);
    let programId = values.program;
    if (!programId) {
      if (conn.live) throw new UsageError("--program: required with a live key (the fixtures program is a test-environment one)");
      programId = (await answer(conn.url, conn.client.POST("/v1/trigger/fixtures"))).programId;
    }

    const { saved, from, position, seam } = await startingPoint(config, conn, programId, since, values.resume);

    const secret = listenSecret(config);
    const show = { format: json ? ("json" as const) : ("summary" as const), onEvent: (e: { id: string; created: string }) => position.showed(e) };
    const server = await listenOn({ secrets: () => [secret], ...show, admit: seam.admit });
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
    stopOnSignal(server, async () => {
      position.flush();
      if (!values.keep) await removeHooks(conn, used);
    });

    if (values.resume && !saved) status(`no position kept for program ${programId} at ${conn.url}: nothing to resume, listening from now on`);
    else if (since || values.resume) {
      const { presenter } = await import("../receiver.ts");
      const present = presenter({ out, info: status, forwardTo, ...show });
      await catchUp(conn, programId, from, { events, seam, position, secret, present }, status);
    }
    seam.goLive();
    status(`ready: in another terminal, ${cardlinkCommand("trigger transaction.auth.qualified")}`);
  },
});
