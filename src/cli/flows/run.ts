// Runs checked flows against a Cardlink over its HTTP API, each in a sandbox (./sandbox.ts): each step's
// request, its answer kept for later references, its expectations checked. Webhooks arrive at a local
// receiver the runner starts (the `listen` receiver, verifying Standard Webhooks signatures), on hooks it
// registers on every program a flow creates, one path per flow so flows run side by side.
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { HOOK_EVENTS } from "../../services/webhooks/index.ts";
import { listen, type VerifiedEvent } from "../receiver.ts";
import { newReceiverSecret, registerOwnHooks, removeHooks } from "../own-hooks.ts";
import { CommandError } from "../args.ts";
import { fetchRetrying, sandboxHeader, unreachable, type Connection } from "../connection.ts";
import { ACTIONS, pathParams, type Action, type Flow, type Step, type WebhookExpectation } from "./schema.ts";
import { resolve, ReferenceError, type Scope } from "./interpolate.ts";
import { fieldFailures } from "./expect.ts";
import { stepLabel } from "./parse.ts";
import { closePlace, openPlace, type FlowSandbox, type Target } from "./sandbox.ts";

export interface RunOptions {
  url: string;
  /** The keys flows run with and where (a fresh sandbox each, or one given). */
  target: Target;
  /** The API key header is `<serviceName>-Key`, the sandbox header `<serviceName>-Sandbox`. */
  serviceName: string;
  /** How many flows run at once (default 1). */
  parallel?: number;
  /** The receiver's port (default 0: any free one). */
  receiverPort?: number;
  /** Called with each flow's result as soon as it ends. */
  onResult?: (result: FlowResult) => void;
}

export interface StepResult {
  label: string;
  line: number;
  status: "passed" | "failed" | "skipped";
  seconds: number;
  failure?: string;
}

export interface FlowResult {
  file: string;
  name: string;
  ok: boolean;
  seconds: number;
  steps: StepResult[];
  /** The fresh sandbox it ran in, and what became of it. */
  sandbox?: FlowSandbox | undefined;
  /** Why it did not run (its sandbox could not be made): its steps are then all skipped. */
  failure?: string | undefined;
}

class StepFailure extends Error {}

const DEFAULT_WITHIN_S = 10;
const DEFAULT_NONE_WITHIN_S = 2;
/** After the expected count arrived, how long more events are awaited before "exactly" is judged. */
const SETTLE_MS = 300;

const seconds = (d: string | number | undefined, fallback: number) => {
  if (d === undefined) return fallback;
  if (typeof d === "number") return d;
  const [, n, unit] = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(d)!;
  return Number(n) * (unit === "ms" ? 0.001 : unit === "m" ? 60 : 1);
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const brief = (v: unknown, max = 300) => {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

interface Receiver {
  server: Server;
  secret: string;
  baseUrl: string;
  /** Events by the path they arrived at. */
  events: Map<string, VerifiedEvent[]>;
  /** This run's id: flows name what they make with it (${run}). */
  runId: string;
}

async function startReceiver(port: number): Promise<Receiver> {
  const secret = newReceiverSecret();
  const events = new Map<string, VerifiedEvent[]>();
  const server = await listen({
    port,
    secrets: () => [secret],
    out: () => undefined,
    format: "json",
    onEvent: (e) => {
      const list = events.get(e.path) ?? [];
      list.push(e);
      events.set(e.path, list);
    },
  });
  return { server, secret, events, runId: randomBytes(4).toString("hex"), baseUrl: `http://localhost:${(server.address() as { port: number }).port}` };
}

/** One flow under way: its connection, the path its webhooks arrive at, the answers its steps keep and its hooks. */
interface FlowRun {
  flow: Flow;
  options: RunOptions;
  receiver: Receiver;
  /** None when no key of the flow's environment was given. */
  conn: Connection | undefined;
  /** The receiver's path for this flow's hooks. */
  path: string;
  scope: Scope;
  /** The hooks the runner registered on the programs the flow made. */
  hooks: string[];
}

function scopeOf(conn: Connection | undefined, url: string, run: string): Scope {
  return {
    answers: new Map(),
    run,
    async now() {
      if (!conn) throw new ReferenceError(`\${now}, \${today} and \${days(N)} read the clock of the flow's environment: give its key`);
      const { data, response } = await conn.client.GET("/v1/clock").catch((err: unknown) => {
        throw new ReferenceError(`the clock: ${unreachable(url, err)}`);
      });
      if (!data) throw new ReferenceError(`the clock: GET /v1/clock answered ${response.status}`);
      return new Date(data.now);
    },
  };
}

/** `value` with its references resolved; one that cannot be fails the step. */
async function resolved<T>(value: T, scope: Scope): Promise<T> {
  try {
    return (await resolve(value, scope)) as T;
  } catch (err) {
    if (err instanceof ReferenceError) throw new StepFailure(err.message);
    throw err;
  }
}

/**
 * Sends the step's request (the action's path parameters taken out of its body) and keeps the answer under
 * the step's id; `sent` is when it went, from which the step's webhooks are awaited.
 */
async function send(run: FlowRun, conn: Connection, step: Step) {
  const { options } = run;
  const action: Action = ACTIONS[step.action];
  const args = await resolved(step.args, run.scope);
  const body: Record<string, unknown> = { ...action.body, ...args };
  let url: string = action.path;
  for (const param of pathParams(action)) {
    const value = String(body[param]);
    url = url.replace(`{${param}}`, param === "path" ? value : encodeURIComponent(value));
    delete body[param];
  }
  const headers: Record<string, string> = { [`${options.serviceName}-Key`]: conn.key };
  if (conn.sandbox !== undefined) headers[sandboxHeader(options.serviceName)] = conn.sandbox;
  const hasBody = action.method !== "GET" && action.method !== "DELETE";
  if (hasBody) headers["content-type"] = "application/json";
  const sent = performance.now();
  let res: Response;
  try {
    const request = new Request(`${options.url}${url}`, { method: action.method, headers, ...(hasBody ? { body: JSON.stringify(body) } : {}) });
    res = await fetchRetrying(request, step.expect?.status);
  } catch (err) {
    throw new StepFailure(`${action.method} ${url}: ${unreachable(options.url, err)}`);
  }
  const text = await res.text();
  let answer: unknown = text;
  try {
    answer = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: kept as text.
  }
  if (step.id) run.scope.answers.set(step.id, answer);
  return { res, answer, sent, what: `${action.method} ${url} answered ${res.status}` };
}

async function runStep(run: FlowRun, step: Step) {
  const { conn, flow, receiver } = run;
  if (!conn) throw new StepFailure(`no ${flow.environment} key: give --${flow.environment === "live" ? "live-key" : "key"}`);
  const { res, answer, sent, what } = await send(run, conn, step);
  // The status first: the other expectations may refer to this answer, which an error does not have.
  const status = step.expect?.status;
  if (status !== undefined ? res.status !== status : !res.ok) {
    throw new StepFailure(`expected status ${status ?? "2xx"}: ${what}: ${brief(answer)}`);
  }
  const expectations = await resolved(step.expect, run.scope);
  if (step.action === "program" && res.ok) {
    const programId = (answer as { id: string }).id;
    try {
      run.hooks.push(...(await registerOwnHooks(conn, programId, HOOK_EVENTS, `${receiver.baseUrl}${run.path}`, receiver.secret)));
    } catch (err) {
      if (err instanceof CommandError) throw new StepFailure(`the runner's hooks on program ${programId}: ${err.message}`);
      throw err;
    }
  }
  const bodyFailures = expectations?.body ? fieldFailures(answer, expectations.body) : [];
  if (bodyFailures.length) throw new StepFailure(`expect.body: ${bodyFailures.join("; ")} (${what}: ${brief(answer)})`);
  for (const [i, expected] of (expectations?.webhooks ?? []).entries()) await awaitWebhooks(run, expected, i, sent);
}

async function awaitWebhooks(run: FlowRun, expected: WebhookExpectation, i: number, since: number) {
  const within = seconds(expected.within, expected.count === 0 ? DEFAULT_NONE_WITHIN_S : DEFAULT_WITHIN_S) * 1000;
  const deadline = since + within;
  const arrived = () => (run.receiver.events.get(run.path) ?? []).filter((e) => e.receivedAt >= since);
  const matching = () => arrived().filter((e) => e.event === expected.event && fieldFailures(e, expected.fields ?? {}).length === 0);
  while (performance.now() < deadline && (expected.count === 0 || matching().length < expected.count)) await sleep(25);
  if (expected.count > 0 && matching().length >= expected.count) await sleep(Math.min(SETTLE_MS, Math.max(0, deadline - performance.now())));
  const got = matching().length;
  if (got === expected.count) return;
  const others = arrived().map((e) => {
    const misses = e.event === expected.event ? fieldFailures(e, expected.fields ?? {}) : [];
    return `${e.event} ${e.id}${misses.length ? ` (${misses.join("; ")})` : ""}`;
  });
  throw new StepFailure(
    `expect.webhooks[${i}]: ${expected.count} × ${expected.event}${expected.fields ? ` with ${brief(expected.fields, 200)}` : ""} within ${within / 1000}s, ` +
      `got ${got}; arrived since the step: ${others.length ? others.join(", ") : "none"}`,
  );
}

/** Runs the steps in order; after the first that fails (or when the flow could not start) the rest are skipped. */
async function runSteps(run: FlowRun, failedBefore: boolean): Promise<{ results: StepResult[]; failed: boolean }> {
  const results: StepResult[] = [];
  let failed = failedBefore;
  for (const step of run.flow.steps) {
    const label = stepLabel(step);
    if (failed) {
      results.push({ label, line: step.line, status: "skipped", seconds: 0 });
      continue;
    }
    const t = performance.now();
    try {
      await runStep(run, step);
      results.push({ label, line: step.line, status: "passed", seconds: (performance.now() - t) / 1000 });
    } catch (err) {
      if (!(err instanceof StepFailure)) throw err;
      failed = true;
      results.push({ label, line: step.line, status: "failed", seconds: (performance.now() - t) / 1000, failure: err.message });
    }
  }
  return { results, failed };
}

async function runFlow(flow: Flow, index: number, options: RunOptions, receiver: Receiver): Promise<FlowResult> {
  const started = performance.now();
  const place = await openPlace(flow, options.target, options.url, options.serviceName);
  const conn = place.conn;
  const scope = scopeOf(conn, options.url, `${receiver.runId}-${index}`);
  const run: FlowRun = { flow, options, receiver, conn, path: `/flow-${index}`, scope, hooks: [] };
  let failed = place.failure !== undefined;
  let results: StepResult[];
  try {
    ({ results, failed } = await runSteps(run, failed));
  } finally {
    // A sandbox about to be deleted takes its hooks with it; elsewhere they go now, with the receiver.
    const deleting = place.fresh && !failed && !options.target.keep;
    if (conn && !deleting) await removeHooks(conn, run.hooks);
  }
  const sandbox = await closePlace(place, !failed, options.target, options.url, options.serviceName);
  return { file: flow.file, name: flow.name, ok: !failed, seconds: (performance.now() - started) / 1000, steps: results, sandbox, failure: place.failure };
}

/** Runs the flows (`parallel` at a time) and answers each one's result, in the order given. */
export async function runFlows(flows: Flow[], options: RunOptions): Promise<FlowResult[]> {
  const receiver = await startReceiver(options.receiverPort ?? 0);
  try {
    const results: FlowResult[] = new Array<FlowResult>(flows.length);
    let next = 0;
    const worker = async () => {
      while (next < flows.length) {
        const i = next++;
        const result = await runFlow(flows[i]!, i, options, receiver);
        results[i] = result;
        options.onResult?.(result);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.parallel ?? 1, flows.length)) }, worker));
    return results;
  } finally {
    receiver.server.closeAllConnections();
    await new Promise<void>((r) => receiver.server.close(() => r()));
  }
}
