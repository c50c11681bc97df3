// `cardlink listen`: with `--secret`, a receiver for hooks you registered yourself. Otherwise it
// configures itself: it registers (or reuses) its own hooks for the chosen events on the program —
// the fixtures program of `trigger` unless --program names another — so no secret is pasted, and
// removes them on exit unless --keep.
import { parseArgs } from "node:util";
import type { Server } from "node:http";
import type { Config } from "../config/index.ts";
import { HOOK_EVENTS, type HookEvent } from "../services/hooks.ts";
import { listen } from "../webhooks/listen.ts";
import { CommandError, answer, connect, type Connection, type Usage } from "./connection.ts";

export interface Listening {
  server: Server;
  /** Removes the hooks this listener uses (unless --keep) and closes it. */
  stop(): Promise<void>;
}

async function ownHooks(conn: Connection, programId: string, url: string): Promise<{ id: string; event: HookEvent }[]> {
  const hooks: { id: string; event: HookEvent; url: string }[] = [];
  let start: string | undefined;
  do {
    const page = await answer(conn.url, conn.client.GET("/v1/programs/{programId}/hooks", { params: { path: { programId }, query: { ...(start ? { start } : {}) } } }));
    hooks.push(...page.items);
    start = page.last;
  } while (start);
  return hooks.filter((h) => h.url === url);
}

/** The receiver on `port`; a port in use is one line naming --port, not a stack trace. */
const listenOn = (port: number, options: Parameters<typeof listen>[0]) =>
  listen(options).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new CommandError(`--port ${port}: already in use by another process; choose a free port with --port`);
    }
    throw err;
  });

export async function listenCommand(args: string[], config: Config, usage: Usage, out: (line: string) => void): Promise<Listening> {
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
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usage("--port: must be a port number");
  const forwardTo = values["forward-to"];
  if (forwardTo !== undefined && !/^https?:\/\/[^/]+/.test(forwardTo)) throw usage("--forward-to: must be an http(s) URL such as http://localhost:8080/webhooks");

  if (values.secret?.length) {
    const secrets = values.secret;
    const server = await listenOn(port, { port, secrets: () => secrets, out, format: "body", forwardTo });
    out(`listening for webhooks on http://localhost:${port}/ (any path)`);
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

  const secrets: string[] = [];
  const server = await listenOn(port, { port, secrets: () => secrets, out, format: "summary", forwardTo });
  const actualPort = (server.address() as { port: number }).port;
  const hookUrl = `http://localhost:${actualPort}/`;
  const existing = await ownHooks(conn, programId, hookUrl);
  const used: string[] = [];
  for (const event of events as HookEvent[]) {
    const found = existing.find((h) => h.event === event);
    const hook = found
      ? await answer(conn.url, conn.client.GET("/v1/hooks/{hookId}", { params: { path: { hookId: found.id } } }))
      : await answer(conn.url, conn.client.POST("/v1/programs/{programId}/hooks", { params: { path: { programId } }, body: { event, url: hookUrl } }));
    secrets.push(hook.secret);
    used.push(hook.id);
  }
  out(
    `listening on ${hookUrl} for ${events.length === HOOK_EVENTS.length ? "every event" : events.join(", ")} of program ${programId} ` +
      `(${used.length} hooks${values.keep ? ", kept on exit" : ", removed on exit"})${forwardTo ? `, forwarding to ${forwardTo}` : ""}`,
  );
  out(`ready: in another terminal, npm run cardlink -- trigger transaction.auth.qualified`);
  return {
    server,
    async stop() {
      if (!values.keep) {
        for (const hookId of used) await conn.client.DELETE("/v1/hooks/{hookId}", { params: { path: { hookId } } }).catch(() => undefined);
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
