// The environment a key's session acts in: switching between the key's own environment and the sandboxes
// of its account, moving a sandbox's clock, and the way back when the chosen sandbox is gone. The forms
// are the environment bar's (environment-bar.tsx), on every page.
import type { Hono } from "hono";
import { chooseDashboardSandbox, type Sandbox } from "../services/accounts/index.ts";
import { callAccountApi, callApi, keySession, type DashContext, type DashEnv } from "./context.ts";
import { afterAction, localBack } from "./actions.ts";
import { compact, num, readForm, text, utcInstant } from "./form.ts";
import { environmentName, setFlash, type KeySession } from "./session.ts";

/** The page a switch returns to: a top-level page (its ids and filters belong to the environment left behind). */
const topPage = (value: string | undefined) => (value && /^\/dashboard(\/[a-z-]+)?$/.test(value) ? value : "/dashboard");

export function mountEnvironment(dash: Hono<DashEnv>) {
  dash.post("/environment", switchEnvironment);
  dash.post("/clock", moveClock);
}

async function switchEnvironment(c: DashContext) {
  const session = keySession(c);
  const f = await readForm(c);
  const back = topPage(text(f, "back"));
  const wanted = text(f, "sandbox");
  if (!wanted) {
    await chooseDashboardSandbox(c.var.runtime.db, session.id, null);
    await setFlash(c, c.var.deps.secret, { kind: "ok", text: `Now in the account's own ${environmentName(session)} environment.` });
    return c.redirect(back, 303);
  }
  // Whether the sandbox is the account's, and the message when it is not, are the API's.
  const found = await callAccountApi<Sandbox>(c, "GET", `/v1/sandboxes/${encodeURIComponent(wanted)}`);
  if (found.ok) await chooseDashboardSandbox(c.var.runtime.db, session.id, found.data.id);
  const done = found.ok ? `Now in sandbox ${found.data.name} (${environmentName(session)}), its time ${found.data.clock.now}.` : "";
  return afterAction(c, found, done, back);
}

async function moveClock(c: DashContext) {
  const f = await readForm(c);
  const move = compact({ days: num(f, "days"), hours: num(f, "hours"), to: utcInstant(f, "to") });
  const result = await callApi<{ now: string }>(c, "POST", "/v1/clock/advance", move);
  return afterAction(c, result, result.ok ? `Sandbox time is now ${result.data.now}.` : "", localBack(text(f, "back"), "/dashboard"));
}

/**
 * The session's sandbox is gone (deleted, or expired): it acts in the key's own environment again, and
 * the next page says so. An action posted meanwhile is not run: it was meant for the sandbox.
 */
export async function leaveLostSandbox(c: DashContext, session: KeySession) {
  await chooseDashboardSandbox(c.var.runtime.db, session.id, null);
  const notRun = c.req.method === "GET" ? "" : " The form was not sent.";
  const text =
    `The sandbox you were in (${session.lostSandbox}) no longer exists: it was deleted or expired. ` +
    `You are back in the account's own ${environmentName(session)} environment.${notRun}`;
  if (c.req.path.endsWith("/stream")) return c.text(text, 409);
  await setFlash(c, c.var.deps.secret, { kind: "error", text });
  return c.redirect("/dashboard", 303);
}
