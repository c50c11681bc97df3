// MID insight exports as real e-mail, sent by the workers role: with SMTP_URL, through a real SMTP server
// (the stack's Mailpit, read back through its HTTP API), an export asked for on the dashboard arrives with
// its file attached; a send the server cannot take is retried and shown with its reason until it goes
// through. Without SMTP_URL, the message is kept in DATA_DIR/mail and opens on the dashboard's mail page,
// its attachment downloadable.
import { existsSync, mkdtempSync } from "node:fs";
import { createConnection, createServer, type Server } from "node:net";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, expectStatus, type Harness } from "../support/harness.ts";
import { haveInfra, infra } from "../support/infra.ts";
import { seededProgram, type SeededProgram } from "../support/mid-insights.ts";
import { attachmentOf, messagesTo } from "../support/mailpit.ts";
import { signedIn, unescaped } from "../support/dashboard.ts";
import { freePort } from "../support/server-process.ts";
import { startRoles, type RunningRoles } from "../../src/app/roles.ts";
import type { MidInsightExport } from "../../src/services/mid-insights/index.ts";

/**
 * A harness with the workers role running, which sends the mail: on a PostgreSQL database of its own where
 * there is one (the sweep takes whatever mail is due in its database), else on PGlite.
 */
async function withWorkers(env: Record<string, string>): Promise<{ h: Harness; roles: RunningRoles }> {
  const h = await createHarness({ env, engine: haveInfra("databaseUrl") ? "postgres" : "pglite", ownDatabase: true });
  return { h, roles: await startRoles(h.services, ["workers"]) };
}

/** The export as the API shows it, once `done` holds for it (the workers send within seconds). */
async function exportWhen(p: SeededProgram, id: string, done: (e: MidInsightExport) => boolean): Promise<MidInsightExport> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = await expectStatus<MidInsightExport>(await p.client.get(`${p.path}/exports/${id}`), 200);
    if (done(found)) return found;
    if (Date.now() > deadline) throw new Error(`export ${id}: ${JSON.stringify(found.mail)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Exports on the dashboard's form, as a user does; answers the export's id from the page it leads to. */
async function exportOnDashboard(h: Harness, p: SeededProgram, form: Record<string, string>): Promise<string> {
  const dashboard = await signedIn(h, p.account.keys.live);
  const res = await dashboard.post("/dashboard/mid-insights/export", { program: p.programId, ...form });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location")!, "http://localhost").searchParams.get("export")!;
}

/**
 * A TCP port that, while open, passes every connection through to Mailpit's SMTP port, and while closed
 * has nothing listening on it: an SMTP server that is unreachable, then back.
 */
async function smtpGate() {
  const target = new URL(infra.smtpTestUrl!);
  const port = await freePort();
  let server: Server | undefined;
  return {
    url: `smtp://127.0.0.1:${port}`,
    open: () =>
      new Promise<void>((resolve) => {
        server = createServer((client) => {
          const upstream = createConnection(Number(target.port), target.hostname);
          client.pipe(upstream).pipe(client);
          client.on("error", () => upstream.destroy());
          upstream.on("error", () => client.destroy());
        });
        server.listen(port, "127.0.0.1", () => resolve());
      }),
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}

describe.skipIf(!haveInfra("smtpTestUrl", "mailpitApiUrl"))("exports sent through a real SMTP server (Mailpit)", () => {
  let h: Harness;
  let roles: RunningRoles;
  let gate: Awaited<ReturnType<typeof smtpGate>>;
  let p: SeededProgram;
  beforeAll(async () => {
    gate = await smtpGate();
    await gate.open();
    ({ h, roles } = await withWorkers({ SMTP_URL: gate.url, MAIL_FROM: "Cardlink exports <exports@cardlink.test>" }));
    p = await seededProgram(h, 40);
  });
  afterAll(async () => {
    await roles?.stop();
    await h?.close();
    await gate?.close();
  });

  it("an export asked for on the dashboard arrives as an e-mail to each recipient with the file attached", async () => {
    const recipients = [`finance-${randomUUID()}@example.com`, `ops-${randomUUID()}@example.com`];
    const exportId = await exportOnDashboard(h, p, { format: "csv", recipients: recipients.join(", "), status: "onboarded" });
    const file = await (await p.client.get(`${p.path}/exports/${exportId}/file`)).text();

    for (const recipient of recipients) {
      const [message] = await messagesTo(recipient);
      expect(message).toMatchObject({ From: { Name: "Cardlink exports", Address: "exports@cardlink.test" }, To: [{ Address: recipient }] });
      expect(message!.Subject).toMatch(/^MID insights export: \d+ insights of Insights \(CSV\)$/);
      expect(message!.Text).toContain("Filters: status=onboarded");
      expect(message!.Attachments).toMatchObject([{ FileName: `mid-insights-${exportId}.csv`, ContentType: "text/csv" }]);
      expect((await attachmentOf(message!, message!.Attachments[0]!.PartID)).toString("utf8")).toBe(file);
    }
    const sent = await exportWhen(p, exportId, (e) => e.mail.every((m) => m.status === "sent"));
    expect(sent.recipients).toEqual(recipients);
    expect(sent.mail).toEqual(recipients.map((recipient) => ({ recipient, status: "sent", attempts: 1, lastError: null, sent: expect.any(String) })));
  });

  it("a send the SMTP server cannot take is retried and shown with its reason, and the export is delivered when it is back", async () => {
    await gate.close();
    const recipient = `later-${randomUUID()}@example.com`;
    const created = await expectStatus<MidInsightExport>(await p.client.post(`${p.path}/exports`, { format: "json", recipients: [recipient] }), 201);
    expect(created.mail).toEqual([{ recipient, status: "pending", attempts: 0, lastError: null, sent: null }]);

    const failing = await exportWhen(p, created.id, (e) => e.mail[0]!.status === "retrying");
    expect(failing.mail[0]).toMatchObject({ attempts: 1, lastError: expect.stringContaining("ECONNREFUSED") });
    const page = unescaped(await (await (await signedIn(h, p.account.keys.live)).get("/dashboard/mail")).text());
    expect(page).toMatch(new RegExp(`${recipient}.*Retrying.*1 try failed, last: [^<]*ECONNREFUSED[^<]*; next try in \\d+ s`, "s"));
    // The file stays downloadable whatever happens to its mail.
    expect((await p.client.get(created.fileUrl)).status).toBe(200);

    await gate.open();
    const [message] = await messagesTo(recipient);
    expect(message!.Attachments).toMatchObject([{ FileName: `mid-insights-${created.id}.json` }]);
    const sent = await exportWhen(p, created.id, (e) => e.mail[0]!.status === "sent");
    expect(sent.mail[0]).toMatchObject({ attempts: 2, lastError: null });
  });
});

describe("exports kept in DATA_DIR without SMTP_URL, on the dashboard's mail page", () => {
  let h: Harness;
  let roles: RunningRoles;
  const dataDir = mkdtempSync(join(tmpdir(), "cardlink-mail-"));
  beforeAll(async () => ({ h, roles } = await withWorkers({ DATA_DIR: dataDir })));
  afterAll(async () => {
    await roles?.stop();
    await h?.close();
  });

  it("keeps each message as an .eml file the mail page opens, its attachment downloadable, and no other account's", async () => {
    const p = await seededProgram(h, 12);
    const exportId = await exportOnDashboard(h, p, { format: "json", recipients: "team@example.com" });
    const sent = await exportWhen(p, exportId, (e) => e.mail[0]!.status === "sent");
    expect(sent.recipients).toEqual(["team@example.com"]);
    const file = await (await p.client.get(sent.fileUrl)).text();

    const dashboard = await signedIn(h, p.account.keys.live);
    const list = unescaped(await (await dashboard.get("/dashboard/mail")).text());
    expect(list).toContain("kept by this server (DATA_DIR/mail)");
    const mailId = /data-mail="([0-9a-f-]{36})"/.exec(list)![1]!;
    expect(existsSync(join(dataDir, "mail", `${mailId}.eml`))).toBe(true);

    const opened = unescaped(await (await dashboard.get(`/dashboard/mail/${mailId}`)).text());
    expect(opened).toContain("Cardlink <no-reply@localhost>");
    expect(opened).toContain("team@example.com");
    expect(opened).toMatch(/MID insights export: 12 insights of Insights \(JSON\)/);
    expect(opened).toContain(`GET /v1/programs/${p.programId}/mid-insights/exports/${exportId}/file`);
    expect(opened).toContain(`mid-insights-${exportId}.json`);

    const attachment = await dashboard.get(`/dashboard/mail/${mailId}/attachments/0`);
    expect(attachment.headers.get("content-disposition")).toBe(`attachment; filename="mid-insights-${exportId}.json"`);
    expect(await attachment.text()).toBe(file);
    const eml = await dashboard.get(`/dashboard/mail/${mailId}/eml`);
    expect(eml.headers.get("content-type")).toBe("message/rfc822");
    expect(await eml.text()).toMatch(/^Content-Type: multipart\/mixed/m);

    const other = await signedIn(h, (await h.createAccount({ tier: "premium" })).keys.live);
    expect((await other.get(`/dashboard/mail/${mailId}`)).status).toBe(404);
    expect((await other.get(`/dashboard/mail/${mailId}/attachments/0`)).status).toBe(404);
    expect(unescaped(await (await other.get("/dashboard/mail")).text())).not.toContain("team@example.com");
  });
});
