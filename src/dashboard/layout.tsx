// The page frame every dashboard page shares: the environment banner (always visible), the main
// navigation, the program switcher, the environment bar (sandboxes and their clock), the flash message,
// and small components for forms and lists.
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { qs, type DashContext } from "./context.ts";
import type { Program } from "../services/catalog/index.ts";
import { EnvironmentBar } from "./environment-bar.tsx";
import { environmentName, type Session } from "./session.ts";
import { FAVICON } from "./assets.ts";

/** Standards mode: without it the browser lays pages out in quirks mode. */
export const DOCTYPE = raw("<!doctype html>");

/** What every page's head carries: the character set, the viewport, the stylesheet and the icon (so no page asks for a missing one). */
export const HeadBasics = () => (
  <>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" type="image/svg+xml" href={FAVICON} />
    <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
  </>
);

const KEY_PAGES = [
  ["/dashboard", "Overview"],
  ["/dashboard/transactions", "Transactions"],
  ["/dashboard/webhooks", "Webhooks"],
  ["/dashboard/events", "Events"],
  ["/dashboard/requests", "Requests"],
  ["/dashboard/offers", "Offers"],
  ["/dashboard/locations", "Locations"],
  ["/dashboard/mid-insights", "MID insights"],
  ["/dashboard/mail", "Mail"],
  ["/dashboard/missing-transaction-requests", "Missing transactions"],
] as const;
/** Sandboxes are made with the account's own key: a sandbox's key does not see this page. */
const ACCOUNT_PAGES = [...KEY_PAGES, ["/dashboard/sandboxes", "Sandboxes"]] as const;

/** The banner: who is signed in, and the environment every page reads and changes (a sandbox named as one). */
function banner(session: Session): { cls: string; text: string } {
  if (session.kind === "operator") return { cls: "env env-operator", text: "Operator — signed in with the admin token" };
  const { key, caller } = session;
  const cls = `env env-${key.live ? "live" : "test"}${caller.parentId ? " env-sandbox" : ""}`;
  const where = !caller.parentId
    ? key.account.name
    : key.parentId
      ? `sandbox ${caller.account.name}, signed in with its own key`
      : `sandbox ${caller.account.name} of ${key.account.name}`;
  return { cls, text: `${environmentName(session)} environment — ${where} (${caller.account.tier})` };
}

function pagesOf(session: Session) {
  if (session.kind === "operator") return [["/dashboard/operator", "Operator"]] as const;
  return session.key.parentId ? KEY_PAGES : ACCOUNT_PAGES;
}

interface LayoutProps {
  c: DashContext;
  title: string;
  /** The current program, carried by every navigation link; absent on pages of no program. */
  program?: Program | undefined;
  programs?: Program[] | undefined;
  /**
   * A record's page (a transaction, an event, a hook): the list it belongs to. The page links back to that
   * list of its program, and choosing another program opens that program's list (the record is of one program).
   */
  list?: { href: string; label: string } | undefined;
  children?: Child;
  error?: string | undefined;
}

export function Layout({ c, title, program, programs, list, children, error }: LayoutProps) {
  const session = c.var.session;
  const flash = c.var.flash;
  const env = banner(session);
  const withProgram = (href: string) => (program ? `${href}${qs({ program: program.id })}` : href);
  return (
    <>
      {DOCTYPE}
    <html lang="en">
      <head>
        <HeadBasics />
        <title>{`${title} · ${c.var.runtime.config.SERVICE_NAME} dashboard`}</title>
        <script src="/dashboard/assets/dashboard.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <div class={env.cls} role="note" aria-label="Environment">
          {env.text}
        </div>
        <TopBar c={c} program={program} programs={programs} list={list} withProgram={withProgram} />
        <EnvironmentBar c={c} />
        <main id="main">
          {list && (
            <nav aria-label="Breadcrumb" class="breadcrumb">
              <a href={withProgram(list.href)}>{program ? `← ${list.label} of ${program.name}` : `← ${list.label}`}</a>
            </nav>
          )}
          <h1>{title}</h1>
          {flash && (
            <p class={`flash flash-${flash.kind}`} role={flash.kind === "error" ? "alert" : "status"}>
              {flash.text}
            </p>
          )}
          {error && (
            <p class="flash flash-error" role="alert">
              {error}
            </p>
          )}
          {children}
        </main>
      </body>
    </html>
    </>
  );
}

type TopBarProps = Pick<LayoutProps, "c" | "program" | "programs" | "list"> & { withProgram: (href: string) => string };

/** The main navigation (each link carrying the current program), the program switcher and sign-out. */
function TopBar({ c, program, programs, list, withProgram }: TopBarProps) {
  const path = c.req.path;
  const pages = pagesOf(c.var.session);
  // A record's page is under its list's entry of the navigation.
  const current = (href: string) => path === href || (list !== undefined && list.href === href);
  return (
    <header class="top">
      <nav aria-label="Main">
        <ul>
          {pages.map(([href, label]) => (
            <li>
              <a href={withProgram(href)} aria-current={current(href) ? (path === href ? "page" : "location") : undefined}>
                {label}
              </a>
            </li>
          ))}
          <li>
            <a href="/docs">API docs</a>
          </li>
        </ul>
      </nav>
      <div class="top-actions">
        {programs && programs.length > 0 && (
          <form method="get" action={list?.href ?? path} class="inline">
            <label for="program-switch">Program</label>
            <select id="program-switch" name="program">
              {programs.map((p) => (
                <option value={p.id} selected={p.id === program?.id}>
                  {p.name}
                </option>
              ))}
            </select>
            <button type="submit">Switch</button>
          </form>
        )}
        <form method="post" action="/dashboard/sign-out" class="inline">
          <button type="submit">Sign out</button>
        </form>
      </div>
    </header>
  );
}

/** A labelled form field: every input has its label, and a hint when the API has a default. */
export function Field(props: {
  name: string;
  label: string;
  value?: string | number | undefined | null;
  type?: string;
  hint?: string;
  required?: boolean;
  id?: string;
  step?: string;
  placeholder?: string;
}) {
  const id = props.id ?? `f-${props.name.replace(/[^a-zA-Z0-9]/g, "-")}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value ?? undefined}
        required={props.required}
        step={props.step}
        placeholder={props.placeholder}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
      />
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** A select's options: each the value sent and the words shown. */
export type Options = readonly (readonly [value: string, label: string])[];

export function Select(props: {
  name: string;
  label: string;
  options: Options;
  value?: string | undefined;
  hint?: string;
  id?: string;
}) {
  const id = props.id ?? `f-${props.name.replace(/[^a-zA-Z0-9]/g, "-")}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} aria-describedby={props.hint ? `${id}-hint` : undefined}>
        {props.options.map(([value, label]) => (
          <option value={value} selected={value === props.value}>
            {label}
          </option>
        ))}
      </select>
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** A one-button form posting to an action (every state change is a POST the CSRF check covers). */
export function ActionButton(props: { action: string; label: string; fields?: Record<string, string>; danger?: boolean }) {
  return (
    <form method="post" action={props.action} class="inline">
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={props.danger ? "danger" : undefined}>
        {props.label}
      </button>
    </form>
  );
}

/** The list's count and a link to the next page, built from the API's `last` cursor. */
export function Pager(props: { count: number; shown: number; last?: string | undefined; next: (start: string) => string; note?: string | undefined }) {
  return (
    <nav class="pager" aria-label="Pages">
      <span>
        {props.shown} shown of {props.count}
        {props.note && ` ${props.note}`}
      </span>
      {props.last && <a href={props.next(props.last)}>Next page</a>}
    </nav>
  );
}

export const Badge = (props: { text: string; tone?: string }) => (
  <span class={`badge badge-${(props.tone ?? props.text).toLowerCase().replace(/[^a-z]+/g, "-")}`}>{props.text}</span>
);

/** A table that scrolls sideways on a narrow screen instead of overflowing the page. */
export const Table = (props: { caption: string; head: string[]; children?: Child; id?: string; empty?: string }) => {
  const none = Array.isArray(props.children) && props.children.length === 0;
  return (
    <div class="table-wrap" tabindex={0} role="region" aria-label={props.caption}>
      <table id={props.id}>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.head.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
      {none && props.empty && <p class="empty">{props.empty}</p>}
    </div>
  );
};

export const money = (amount: number, currency: string) => `${amount.toFixed(2)} ${currency}`;
