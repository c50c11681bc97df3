// Where a flow runs: with an account's key, in a fresh sandbox of its own (made before the flow, deleted
// after it unless kept; a failed flow's is kept until it expires, so its records can be looked at); with
// --sandbox ID, in that existing sandbox through the `<service>-Sandbox` header; with a sandbox's own key
// (the server refuses it a sandbox of its own: 403), in that sandbox directly.
import { randomBytes } from "node:crypto";
import { basename, extname } from "node:path";
import { connection, unreachable, type Connection } from "../connection.ts";
import type { Flow } from "./schema.ts";

/** The keys flows run with, by environment: an account's (or, without `sandbox`, perhaps a sandbox's own). */
export interface Target {
  keys: { test?: string | undefined; live?: string | undefined };
  /** Run every flow in this sandbox of the keys' account. */
  sandbox?: string | undefined;
  /** Keep each flow's fresh sandbox after it passes too. */
  keep?: boolean | undefined;
}

/** The sandbox a flow ran in, as its report names it. */
export interface FlowSandbox {
  id: string;
  name: string;
  expiresAt: string;
  /** What became of it after the flow: deleted, kept (until expiresAt), or not deleted and why. */
  outcome: "deleted" | "kept" | { notDeleted: string };
}

/** Where one flow runs: its connection (none when no key of its environment was given), and its fresh sandbox. */
export interface Place {
  conn?: Connection | undefined;
  fresh?: Omit<FlowSandbox, "outcome"> | undefined;
  /** Why no place could be made (the sandbox was refused), for the flow's report. */
  failure?: string | undefined;
}

/** A sandbox's name: the flow file's and a short random suffix, unique among the account's. */
export const sandboxName = (file: string) => `${basename(file, extname(file)).slice(0, 48)}-${randomBytes(3).toString("hex")}`;

/** What the API answered, in a line: its status, code and message. */
const refusal = (status: number, body: unknown) => {
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  return `${status} ${error?.code ?? ""}: ${error?.message ?? "no message"}`;
};

export async function openPlace(flow: Flow, target: Target, url: string, serviceName: string): Promise<Place> {
  const key = target.keys[flow.environment];
  if (target.sandbox !== undefined) return { conn: key ? connection(url, key, serviceName, target.sandbox) : undefined };
  const accountKey = target.keys.test ?? target.keys.live;
  if (!accountKey) return {};
  const account = connection(url, accountKey, serviceName);
  const name = sandboxName(flow.file);
  const created = await account.client.POST("/v1/sandboxes", { body: { name } }).catch((err: unknown) => ({ down: unreachable(url, err) }));
  if ("down" in created) return { failure: `could not make the flow's sandbox: ${created.down}` };
  const { data, error, response } = created;
  // A sandbox's own key may not make sandboxes: the flow runs in that sandbox.
  if (response.status === 403) return { conn: key ? connection(url, key, serviceName) : undefined };
  if (!data) return { failure: `could not make the flow's sandbox: POST /v1/sandboxes answered ${refusal(response.status, error)}` };
  return {
    conn: connection(url, data.keys[flow.environment], serviceName),
    fresh: { id: data.id, name: data.name, expiresAt: data.expiresAt },
  };
}

/** Ends a flow's fresh sandbox: deleted after a pass unless kept; a failed flow's is kept. */
export async function closePlace(place: Place, ok: boolean, target: Target, url: string, serviceName: string): Promise<FlowSandbox | undefined> {
  if (!place.fresh) return undefined;
  if (!ok || target.keep) return { ...place.fresh, outcome: "kept" };
  const account = connection(url, (target.keys.test ?? target.keys.live)!, serviceName);
  try {
    const { error, response } = await account.client.DELETE("/v1/sandboxes/{sandboxId}", { params: { path: { sandboxId: place.fresh.id } } });
    return { ...place.fresh, outcome: response.ok ? "deleted" : { notDeleted: refusal(response.status, error) } };
  } catch (err) {
    return { ...place.fresh, outcome: { notDeleted: unreachable(url, err) } };
  }
}
