// Mail: the e-mail Cardlink sends this environment (MID insight exports, a message per recipient with
// the file attached) and where each stands — sent, or retrying with the reason. Without SMTP_URL the
// messages are kept in DATA_DIR/mail: each opens here as it would arrive (sender, subject, text) with
// its attachment to download, and the whole message as an .eml file for any mail program.
import type { Hono } from "hono";
import PostalMime from "postal-mime";
import { DomainError } from "../../domain/errors.ts";
import { UUID_PATTERN } from "../../platform/ids.ts";
import { readLocalMail } from "../../platform/mail.ts";
import { ctxOf } from "../../api/context.ts";
import { getExportMail, listExportMail, type ExportMail } from "../../services/mid-insights/index.ts";
import { keySession, PageError, qs, type DashContext, type DashEnv, type RouteContext } from "../context.ts";
import { Layout, Pager, Table } from "../layout.tsx";
import { StatusBadge } from "../statuses.tsx";
import { timeOf } from "../session.ts";
import { when } from "../components/when.ts";

/** Where a message stands, in words: when it was sent, or why not yet and when it is tried again. */
function standing(m: ExportMail): string {
  if (m.status === "sent") return `sent ${when(m.sent ?? m.created)}${m.transport === "local" ? ", kept here" : " to the SMTP server"}${m.attempts > 1 ? ` (try ${m.attempts})` : ""}`;
  if (m.status === "pending") return "waiting for the workers to send it";
  const tries = `${m.attempts} ${m.attempts === 1 ? "try" : "tries"} failed`;
  if (m.status === "failed") return `${tries}, not tried again: ${m.lastError ?? ""}`;
  return `${tries}, last: ${m.lastError ?? ""}; next try in ${m.nextAttemptInSeconds ?? 0} s`;
}

/** The session's message `id`, or the page's 404: never another account's or environment's. */
async function messageOf(c: DashContext, id: string): Promise<ExportMail> {
  const notFound = { code: "resource_not_found", message: `No message with id ${id}.` };
  if (!UUID_PATTERN.test(id)) throw new PageError(404, notFound);
  try {
    return await getExportMail(ctxOf(c.var.runtime, keySession(c).caller), id);
  } catch (err) {
    if (err instanceof DomainError && err.kind === "not_found") throw new PageError(404, notFound);
    throw err;
  }
}

/** The message as kept in DATA_DIR/mail, parsed; undefined when it went to an SMTP server or is not here. */
async function keptMessage(c: DashContext, m: ExportMail) {
  if (m.transport !== "local") return undefined;
  const raw = await readLocalMail(c.var.runtime.config, m.id);
  return raw ? { raw, parsed: await PostalMime.parse(raw) } : undefined;
}

/** A file name a download may carry: the attachment's own, without anything a header could misread. */
const safeName = (name: string | null, fallback: string) => (name ?? fallback).replace(/[^A-Za-z0-9._-]/g, "_");

export function mountMail(dash: Hono<DashEnv>) {
  dash.get("/mail", listMail);
  dash.get("/mail/:id", showMessage);
  dash.get("/mail/:id/attachments/:index", downloadAttachment);
  dash.get("/mail/:id/eml", downloadMessage);
}

async function listMail(c: DashContext) {
  const page = await listExportMail(ctxOf(c.var.runtime, keySession(c).caller), { limit: 25, ...(c.req.query("start") ? { start: c.req.query("start")! } : {}) });
  return c.html(<MailPage c={c} page={page} />);
}

async function showMessage(c: RouteContext<"/mail/:id">) {
  const m = await messageOf(c, c.req.param("id"));
  const kept = await keptMessage(c, m);
  return c.html(<MessagePage c={c} m={m} kept={kept} />);
}

async function downloadAttachment(c: RouteContext<"/mail/:id/attachments/:index">) {
  const m = await messageOf(c, c.req.param("id"));
  const attachment = (await keptMessage(c, m))?.parsed.attachments[Number(c.req.param("index"))];
  if (!attachment) throw new PageError(404, { code: "resource_not_found", message: "The message has no such attachment here." });
  return c.body(attachment.content as ArrayBuffer, 200, {
    "content-type": attachment.mimeType,
    "content-disposition": `attachment; filename="${safeName(attachment.filename, "attachment")}"`,
  });
}

async function downloadMessage(c: RouteContext<"/mail/:id/eml">) {
  const m = await messageOf(c, c.req.param("id"));
  const kept = await keptMessage(c, m);
  if (!kept) throw new PageError(404, { code: "resource_not_found", message: "This server does not keep that message." });
  return c.body(new Uint8Array(kept.raw), 200, { "content-type": "message/rfc822", "content-disposition": `attachment; filename="${m.id}.eml"` });
}

function MailPage({ c, page }: { c: DashContext; page: Awaited<ReturnType<typeof listExportMail>> }) {
  const smtp = Boolean(c.var.runtime.config.SMTP_URL);
  return (
    <Layout c={c} title="Mail">
      <p class="hint">
        The e-mail Cardlink sends this environment: each MID insights export, one message per recipient with the file attached.{" "}
        {smtp
          ? "They go to the operator's SMTP server; a send that fails is tried again after 2 s, 10 s, 1 min, 5 min, … and shown here with its reason."
          : "No SMTP server is configured (SMTP_URL), so they are kept by this server (DATA_DIR/mail): open one to read it as it would arrive."}{" "}
        Times are {timeOf(c.var.session).time}, UTC.
      </p>
      <Table caption="Messages, newest first" head={["When", "To", "Subject", "Status", "", ""]} id="mail" empty="No mail yet: export MID insights to send some.">
        {page.items.map((m) => (
          <tr data-mail={m.id}>
            <td>{when(m.created)}</td>
            <td>{m.recipient}</td>
            <td>{m.subject}</td>
            <td>
              <StatusBadge status={m.status} />
            </td>
            <td>{standing(m)}</td>
            <td>
              <a href={`/dashboard/mail/${m.id}`}>Open</a>
            </td>
          </tr>
        ))}
      </Table>
      <Pager count={page.count} shown={page.items.length} last={page.last} next={(s) => `/dashboard/mail${qs({ start: s })}`} />
    </Layout>
  );
}

function MessagePage({ c, m, kept }: { c: DashContext; m: ExportMail; kept: Awaited<ReturnType<typeof keptMessage>> }) {
  const email = kept?.parsed;
  return (
    <Layout c={c} title={m.subject}>
      <p>
        <a href="/dashboard/mail">All mail</a> · <a href={`/dashboard/mid-insights${qs({ program: m.programId, export: m.exportId })}`}>The export</a>
      </p>
      <dl class="facts" id="message">
        <dt>From</dt>
        <dd>{email?.from ? `${email.from.name ? `${email.from.name} ` : ""}<${"address" in email.from ? (email.from.address ?? "") : ""}>` : "—"}</dd>
        <dt>To</dt>
        <dd>{m.recipient}</dd>
        <dt>Subject</dt>
        <dd>{m.subject}</dd>
        <dt>Date</dt>
        <dd>{email?.date ?? "—"}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={m.status} /> {standing(m)}
        </dd>
        <dt>Message-ID</dt>
        <dd>{m.messageId ?? "—"}</dd>
      </dl>
      {m.transport === "smtp" && <p>Handed to the operator's SMTP server: read it in the mailbox of {m.recipient} (under docker compose, in Mailpit at http://localhost:8025).</p>}
      {m.transport === "local" && !kept && <p class="flash flash-error">This server's DATA_DIR does not hold the message: it was kept by the workers of another process.</p>}
      {email && <KeptMessage m={m} email={email} />}
    </Layout>
  );
}

/** A message kept in DATA_DIR/mail, parsed. */
type Email = NonNullable<Awaited<ReturnType<typeof keptMessage>>>["parsed"];

/** The message as it would arrive: its text, its attachments to download, and the whole of it as an .eml file. */
const KeptMessage = ({ m, email }: { m: ExportMail; email: Email }) => (
  <>
    <h2>Text</h2>
    <pre class="payload">{email.text ?? ""}</pre>
    <h2>Attachments</h2>
    <ul id="attachments">
      {email.attachments.map((a, i) => (
        <li>
          <a href={`/dashboard/mail/${m.id}/attachments/${i}`} download>
            {a.filename ?? `attachment ${i + 1}`}
          </a>{" "}
          ({a.mimeType})
        </li>
      ))}
    </ul>
    <p>
      <a href={`/dashboard/mail/${m.id}/eml`} download>
        Download the whole message (.eml)
      </a>
    </p>
  </>
);
