// The environment bar under every key page's navigation: the switcher between the key's own environment
// and its account's sandboxes, and in a sandbox its clock with the form that moves it. It reads both
// from the API as it renders, so every page (those a form's answer renders included) shows them.
import type { Sandbox } from "../services/accounts/index.ts";
import { callAccountApi, callApi, type DashContext, type List } from "./context.ts";
import type { KeySession } from "./session.ts";

interface EnvironmentTime {
  now: string;
  frozen: boolean;
}

export async function EnvironmentBar({ c }: { c: DashContext }) {
  const session = c.var.session;
  if (session.kind !== "key") return null;
  const inSandbox = session.caller.parentId !== null;
  const [sandboxes, clock] = await Promise.all([
    session.key.parentId === null ? callAccountApi<List<Sandbox>>(c, "GET", "/v1/sandboxes?limit=100") : undefined,
    inSandbox ? callApi<EnvironmentTime>(c, "GET", "/v1/clock") : undefined,
  ]);
  const listed = sandboxes?.ok ? sandboxes.data.items : [];
  if (listed.length === 0 && !inSandbox) return null;
  const url = new URL(c.req.url);
  return (
    <div class="env-bar">
      {session.key.parentId === null && <Switcher session={session} sandboxes={listed} back={url.pathname.match(/^\/dashboard(\/[a-z-]+)?/)?.[0] ?? "/dashboard"} />}
      {clock?.ok && <SandboxClock time={clock.data} back={url.pathname + url.search} />}
    </div>
  );
}

/** The key's own environment and each sandbox of its account, entered in the key's environment (test or live, as the banner says). */
function Switcher({ session, sandboxes, back }: { session: KeySession; sandboxes: Sandbox[]; back: string }) {
  return (
    <form method="post" action="/dashboard/environment" class="inline">
      <label for="env-switch">Switch to</label>
      <select id="env-switch" name="sandbox">
        <option value="" selected={session.caller.parentId === null}>
          {`${session.key.account.name} (the account's own)`}
        </option>
        {sandboxes.map((s) => (
          <option value={s.id} selected={s.id === session.caller.account.id}>
            {`Sandbox ${s.name}`}
          </option>
        ))}
      </select>
      <input type="hidden" name="back" value={back} />
      <button type="submit">Switch environment</button>
    </form>
  );
}

/** The sandbox's time, and a move by days and hours or to an instant (POST /v1/clock/advance). */
function SandboxClock({ time, back }: { time: EnvironmentTime; back: string }) {
  return (
    <form method="post" action="/dashboard/clock" class="inline" aria-label="Sandbox clock">
      <span>
        Sandbox time <strong id="sandbox-now">{time.now}</strong>{" "}
        <small class="hint">{time.frozen ? "(frozen: it moves only when advanced)" : "(follows the service clock)"}</small>
      </span>
      <label for="clock-days">Days</label>
      <input id="clock-days" name="days" class="short" inputmode="decimal" />
      <label for="clock-hours">Hours</label>
      <input id="clock-hours" name="hours" class="short" inputmode="decimal" />
      <label for="clock-to">Or to the instant (UTC)</label>
      <input id="clock-to" name="to" type="datetime-local" step="1" />
      <input type="hidden" name="back" value={back} />
      <button type="submit">Advance sandbox time</button>
    </form>
  );
}
