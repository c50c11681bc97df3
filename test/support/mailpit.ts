// Mailpit's HTTP API (https://mailpit.axllent.org/docs/api-v1/), where the messages Cardlink sent to the
// stack's SMTP server are read back: found by recipient, with their text and attachments.
import { infra } from "./infra.ts";

export interface MailpitMessage {
  ID: string;
  MessageID: string;
  From: { Name: string; Address: string };
  To: { Name: string; Address: string }[];
  Subject: string;
  Date: string;
  Text: string;
  Attachments: { PartID: string; FileName: string; ContentType: string; Size: number }[];
}

const api = async (path: string) => {
  const res = await fetch(`${infra.mailpitApiUrl!.replace(/\/$/, "")}/api/v1${path}`);
  if (!res.ok) throw new Error(`Mailpit ${path}: ${res.status} ${await res.text()}`);
  return res;
};

/** The messages Mailpit holds for `address`, waiting (up to `ms`) until there are `count`. */
export async function messagesTo(address: string, count = 1, ms = 30_000): Promise<MailpitMessage[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = (await (await api(`/search?query=${encodeURIComponent(`to:"${address}"`)}`)).json()) as { messages: { ID: string }[] };
    if (found.messages.length >= count) return Promise.all(found.messages.map(async (m) => (await (await api(`/message/${m.ID}`)).json()) as MailpitMessage));
    if (Date.now() > deadline) throw new Error(`Mailpit has ${found.messages.length} of ${count} messages to ${address}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An attachment's bytes, as the message carries it. */
export const attachmentOf = async (message: MailpitMessage, partId: string) => Buffer.from(await (await api(`/message/${message.ID}/part/${partId}`)).arrayBuffer());
