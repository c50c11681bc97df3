// `cardlink listen`: with `--secret`, a receiver for hooks you registered yourself. Otherwise it
// configures itself: it registers its own hooks for the chosen events on the program — the fixtures
// program of `trigger` unless --program names another — all signed with one secret it keeps and prints
// (so a --forward-to server verifies what it is sent), and removes them on exit unless --keep.
import { parseArgs } from "node:util";
import type { Server } from "node:http";
import type { Config } from "../config/index.ts";
import { HOOK_EVENTS, type HookEvent } from "../services/hooks.ts";
import { listen } from "../webhooks/listen.ts";
import { CommandError, answer, connect, type Usage } from "./connection.ts";
import { listenSecret, registerOwnHooks, removeHooks } from "./own-hooks.ts";

export interface Listening {
  /** Undefined for --print-secret, which prints and ends. */
  server?: Server;
  /** Removes the hooks this listener uses (unless --keep) and closes it. */
  stop(): Promise<void>;
}

/** The receiver on `port`; a port in use is one line naming --port, not a stack trace. */
const listenOn = (port: number, options: Parameters<typeof listen>[0]) =>
  listen(options).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new CommandError(`--port ${port}: already in use by another process; choose a free port with --port`);
    }
    throw err;
  });

/**
 * `out` takes what the listener prints (each event, or each body under --print-json); `info` its status
 * lines, which under --print-json go elsewhere (stderr) so stdout is one JSON document a line.
 */
export async function listenCommand(
  args: string[],
  config: Config,
  usage: Usage,
  out: (line: string) => void,
  info: (line: string) => void = out,
): Promise<Listening> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "4000" },
      secret: { type: "string", multiple: true },
      key: { type: "string" },
      url: { type: "string" },
      program: { type: "string" },
      events: { type: "string", multiple: true },
      "forward-to": { type: "string" },
      keep: { type: "boolean", default: false },
      "print-secret": { type: "boolean", default: false },
      "print-json": { type: "boolean", default: false },
    },
  });
  if (values["print-secret"]) {
    out(listenSecret(config));
    return { stop: () => Promise.resolve() };
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usage("--port: must be a port number");
  const forwardTo = values["forward-to"];
  if (forwardTo !== undefined && !/^https?:\/\/[^/]+/.test(forwardTo)) throw usage("--forward-to: must be an http(s) URL such as http://localhost:8080/webhooks");
  const json = values["print-json"];
  const status = json ? info : out;

  if (values.secret?.length) {
    const secrets = values.secret;
    const server = await listenOn(port, { port, secrets: () => secrets, out, info: status, format: json ? "json" : "body", forwardTo });
    status(`listening for webhooks on http://localhost:${port}/ (any path)`);
    return { server, stop: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  const events = (values.events ?? [...HOOK_EVENTS]).flatMap((e) => e.split(",")).map((e) => e.trim()).filter(Boolean);
  const unknown = events.filter((e) => !(HOOK_EVENTS as readonly string[]).includes(e));
  if (unknown.length > 0) throw usage(`--events: unknown ${unknown.join(", ")}; events are ${HOOK_EVENTS.join(", ")}`);
  const conn = connect(config, values, usage);
  let programId = values.program;
  if (!programId) {
    if (conn.live) throw usage("--program: required with a live key (the fixtures program is a test-environment one)");
    programId = (await answer(conn.url, conn.client.POST("/v1/trigger/fixtures"))).programId;
  }

  const secret = listenSecret(config);
  const server = await listenOn(port, { port, secrets: () => [secret], out, info: status, format: json ? "json" : "summary", forwardTo });
  const actualPort = (server.address() as { port: number }).port;
  const hookUrl = `http://localhost:${actualPort}/`;
  let used: string[];
  try {
    used = await registerOwnHooks(conn, programId, events as HookEvent[], hookUrl, secret);
  } catch (err) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  }
  status(
    `listening on ${hookUrl} for ${events.length === HOOK_EVENTS.length ? "every event" : events.join(", ")} of program ${programId} ` +
      `(${used.length} hooks${values.keep ? ", kept on exit" : ", removed on exit"})${forwardTo ? `, forwarding to ${forwardTo}` : ""}`,
  );
  status(`signing secret: ${secret} (the same for every hook of this listener; \`listen --print-secret\` prints it)`);
  status(`ready: in another terminal, npm run cardlink -- trigger transaction.auth.qualified`);
  return {
    server,
    async stop() {
      if (!values.keep) await removeHooks(conn, used);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
