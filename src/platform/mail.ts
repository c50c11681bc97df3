// Outgoing e-mail, one interface over two transports (nodemailer both ways). With SMTP_URL, each message
// goes to that server, the only one the service connects to for mail (the operator's setting; recipients
// are addresses inside the message, never connected to). Without it, each message is written as an .eml
// file in DATA_DIR/mail, where the dashboard's mail page opens it. Content is only ever given inline:
// nodemailer is told never to read a file or fetch a URL for a message.
import { createWriteStream, mkdirSync, renameSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createTransport } from "nodemailer";
import type { Config } from "./config/index.ts";

export interface OutgoingMail {
  /** The message's own id: its Message-ID and its file's name, the same on every try. */
  id: string;
  to: string;
  subject: string;
  text: string;
  date: Date;
  attachment: { filename: string; contentType: string; content: Readable };
}

/** What a failed send says: the SMTP server's answer (code and line) or the connection's error. */
export interface MailFailure {
  reason: string;
  responseCode?: number | undefined;
  code?: string | undefined;
}

export interface Mailer {
  /** `smtp`: through SMTP_URL; `local`: kept in DATA_DIR/mail. */
  readonly kind: "smtp" | "local";
  /** Sends one message; resolves with its Message-ID, or rejects with a MailFailure. */
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): void;
}

/** The folder of the messages kept without SMTP_URL. */
export const localMailDir = (config: Pick<Config, "DATA_DIR">) => join(config.DATA_DIR, "mail");

/** A kept message's file: named by the message's id alone, never by anything a caller gives. */
export const localMailPath = (config: Pick<Config, "DATA_DIR">, id: string) => join(localMailDir(config), `${id}.eml`);

/** A kept message's bytes, or undefined when this process's DATA_DIR does not hold it. */
export const readLocalMail = (config: Pick<Config, "DATA_DIR">, id: string): Promise<Buffer | undefined> =>
  readFile(localMailPath(config, id)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });

/** `SERVICE_NAME <no-reply@localhost>` unless MAIL_FROM names another sender. */
export const mailFrom = (config: Pick<Config, "MAIL_FROM" | "SERVICE_NAME">) => config.MAIL_FROM ?? `${config.SERVICE_NAME} <no-reply@localhost>`;

const SAFE = { disableFileAccess: true, disableUrlAccess: true } as const;

const failure = (err: unknown): MailFailure => {
  const e = err as { message?: string; response?: string; responseCode?: number; code?: string };
  const reason = (e.response ?? e.message ?? String(err)).replace(/\s+/g, " ").trim().slice(0, 500);
  return { reason, responseCode: e.responseCode, code: e.code };
};

export function createMailer(config: Pick<Config, "SMTP_URL" | "DATA_DIR" | "MAIL_FROM" | "SERVICE_NAME">): Mailer {
  const from = mailFrom(config);
  const message = (mail: OutgoingMail) => ({
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    date: mail.date,
    messageId: `<${mail.id}@cardlink>`,
    attachments: [mail.attachment],
  });

  if (config.SMTP_URL) {
    // Timeouts short enough that an unreachable server is a failure to retry, not a stuck worker.
    const transport = createTransport({ url: config.SMTP_URL, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 60_000, ...SAFE });
    return {
      kind: "smtp",
      async send(mail) {
        try {
          return { messageId: (await transport.sendMail(message(mail))).messageId };
        } catch (err) {
          throw failure(err);
        }
      },
      close: () => transport.close(),
    };
  }

  const transport = createTransport({ streamTransport: true, buffer: false, newline: "windows", ...SAFE });
  return {
    kind: "local",
    async send(mail) {
      const path = localMailPath(config, mail.id);
      const partial = `${path}.partial`;
      try {
        mkdirSync(localMailDir(config), { recursive: true, mode: 0o700 });
        const info = await transport.sendMail(message(mail));
        await pipeline(info.message as Readable, createWriteStream(partial, { mode: 0o600 }));
        renameSync(partial, path);
        return { messageId: info.messageId };
      } catch (err) {
        rmSync(partial, { force: true });
        throw failure(err);
      }
    },
    close: () => transport.close(),
  };
}
