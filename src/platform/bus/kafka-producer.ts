// Publishing on Kafka: concurrent publishes are coalesced into one sendBatch (acks=all) per linger, one
// send at a time, so the messages of a key reach the broker in publish order.
import type { Message, Producer, RecordMetadata } from "kafkajs";
import { BusError, type Published } from "./bus.ts";
import type { BrokerNames } from "./kafka-names.ts";

/** A publish waiting for its send. */
interface Pending {
  topic: string;
  partition: number;
  message: Message;
  resolve: (p: Published) => void;
  reject: (err: unknown) => void;
}

export interface PublishQueueOptions {
  producer: Producer;
  /** Connects the producer (once) before the first send. */
  connect(): Promise<void>;
  names: BrokerNames;
  /** How long a publish waits for others to share its broker round trip (ms). */
  lingerMs: number;
  /** The most messages per round trip. */
  maxSend: number;
}

/**
 * Publishes waiting for the next send: what arrives during the linger and while the previous send is in
 * flight, at most `maxSend` a send.
 */
export class PublishQueue {
  private readonly pending: Pending[] = [];
  private sending = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PublishQueueOptions) {}

  /** Resolves with the message's offset once every in-sync replica has it. */
  enqueue(topic: string, partition: number, key: string, value: Buffer): Promise<Published> {
    return new Promise<Published>((resolve, reject) => {
      this.pending.push({ topic, partition, message: { key, value, partition }, resolve, reject });
      this.schedule();
    });
  }

  /** Sends everything waiting; resolves when nothing is waiting or in flight. */
  async drain(): Promise<void> {
    while (this.sending || this.pending.length > 0) await this.flush().then(() => new Promise((resolve) => setTimeout(resolve, 1)));
  }

  private schedule() {
    if (this.sending || this.timer) return;
    if (this.pending.length >= this.options.maxSend) void this.flush();
    else this.timer = setTimeout(() => void this.flush(), this.options.lingerMs);
  }

  private async flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.sending || this.pending.length === 0) return;
    this.sending = true;
    const batch = this.pending.splice(0, this.options.maxSend);
    try {
      await this.options.connect();
      const meta = await this.options.producer.sendBatch({ acks: -1, topicMessages: topicMessagesOf(batch, this.options.names) });
      acknowledge(batch, meta, this.options.names);
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.sending = false;
      if (this.pending.length > 0) this.schedule();
    }
  }
}

function topicMessagesOf(batch: Pending[], { onBroker }: BrokerNames) {
  const byTopic = new Map<string, Message[]>();
  for (const p of batch) {
    const list = byTopic.get(p.topic) ?? [];
    list.push(p.message);
    byTopic.set(p.topic, list);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic: onBroker(topic), messages }));
}

/** Resolves each publish with its offset: a partition's messages of one request get consecutive offsets from its base offset, in request order. */
function acknowledge(batch: Pending[], meta: RecordMetadata[], { fromBroker }: BrokerNames) {
  const next = new Map(meta.map((m) => [`${fromBroker(m.topicName)}\u0000${m.partition}`, Number(m.baseOffset)]));
  for (const p of batch) {
    const k = `${p.topic}\u0000${p.partition}`;
    const offset = next.get(k);
    if (offset === undefined) {
      p.reject(new BusError(`${p.topic}: the broker did not acknowledge the message`));
      continue;
    }
    next.set(k, offset + 1);
    p.resolve({ topic: p.topic, partition: p.partition, offset });
  }
}
