// The topic registry: every topic Cardlink uses, its key, schema, producers and consumers, and the
// dead-letter topic of each consumed topic. docs/bus-and-simulators.md renders this table.
import { loadSchema } from "./avro.ts";
import type { TopicSpec } from "./bus.ts";
import { deadLetterTopic } from "./dead-letter.ts";
import type { Scheme } from "./messages.ts";

export interface TopicInfo {
  name: string;
  key: string;
  /** Schema file in src/platform/bus/schemas, without .avsc. */
  schema: string;
  partitions: number;
  producers: string[];
  consumers: string[];
  /** Consumed topics have one; its producer is whoever consumes this topic. */
  deadLetter: boolean;
  /** Kafka keeps the latest value of each key (cleanup.policy=compact): settings, not a history. */
  compacted?: true;
}

const transactions = (scheme: Scheme): TopicInfo => ({
  name: `${scheme}.transactions`,
  key: "card id",
  schema: `${scheme}-transaction`,
  partitions: 6,
  producers: [`${scheme} simulator`],
  consumers: ["qualifier"],
  deadLetter: true,
});

/** Test transactions' commands, a topic per scheme: each network reads only its own. */
const commands = (scheme: Scheme): TopicInfo => ({
  name: `simulator.commands.${scheme}`,
  key: "card id",
  schema: "simulator-command",
  partitions: 3,
  producers: ["api (test transactions: /v1/transactions/test, clear, void, refund)", "workers (purchases accepted while the bus was down)"],
  consumers: [`${scheme} simulator`],
  deadLetter: true,
});

export const TOPICS = {
  visaTransactions: transactions("visa"),
  mastercardTransactions: transactions("mastercard"),
  amexTransactions: transactions("amex"),
  onboardingRequests: {
    name: "network.onboarding.requests",
    key: "location id",
    schema: "onboarding-request",
    partitions: 3,
    producers: ["lifecycle workers (location sync)"],
    consumers: ["visa, mastercard and amex simulators (each takes its scheme's)"],
    deadLetter: true,
  },
  onboardingReplies: {
    name: "network.onboarding.replies",
    key: "location id",
    schema: "onboarding-reply",
    partitions: 3,
    producers: ["visa, mastercard and amex simulators"],
    consumers: ["lifecycle workers (location sync)"],
    deadLetter: true,
  },
  lookupRequests: {
    name: "network.lookup.requests",
    key: "card id",
    schema: "lookup-request",
    partitions: 3,
    producers: ["lifecycle workers (missing transaction requests)"],
    consumers: ["visa, mastercard and amex simulators (each takes its scheme's)"],
    deadLetter: true,
  },
  lookupReplies: {
    name: "network.lookup.replies",
    key: "card id",
    schema: "lookup-reply",
    partitions: 3,
    producers: ["visa, mastercard and amex simulators"],
    consumers: ["lifecycle workers (missing transaction requests)"],
    deadLetter: true,
  },
  cardEnrolments: {
    name: "network.card.enrolments",
    key: "card id",
    schema: "card-enrolment",
    partitions: 3,
    producers: ["api (card enrolment and removal), lifecycle workers (what a failed publish left)"],
    consumers: ["visa, mastercard and amex simulators (each takes its scheme's)"],
    deadLetter: true,
  },
  visaCommands: commands("visa"),
  mastercardCommands: commands("mastercard"),
  amexCommands: commands("amex"),
  simulatorSettings: {
    name: "simulator.settings",
    key: "faults:<scheme>, traffic, clock or clock:<sandbox id> (compacted)",
    schema: "simulator-setting",
    partitions: 1,
    producers: ["api (/admin faults and traffic; advances of the service clock; sandboxes' clocks and deletions)"],
    consumers: ["visa, mastercard and amex simulators (each applies what is for it and keeps it in its own store)"],
    deadLetter: true,
    compacted: true,
  },
  environmentClockAcks: {
    name: "network.clock.acks",
    key: "sandbox id",
    schema: "environment-clock-ack",
    partitions: 1,
    producers: ["visa, mastercard and amex simulators (a sandbox's CLOCK setting applied, its due work run and answered)"],
    consumers: ["lifecycle workers (record it for the sandbox's clock advance, which waits for it)"],
    deadLetter: true,
  },
  trafficProgress: {
    name: "simulator.traffic.progress",
    key: "run id:scheme (compacted)",
    schema: "traffic-progress",
    partitions: 1,
    producers: ["visa, mastercard and amex simulators (while a traffic run generates)"],
    consumers: ["workers (the counts GET /admin/simulators/traffic shows)"],
    deadLetter: true,
    compacted: true,
  },
} as const satisfies Record<string, TopicInfo>;

export const transactionTopic = (scheme: Scheme): string => `${scheme}.transactions`;

/** Where the service sends commands for the scheme's simulated network. */
export const commandTopic = (scheme: Scheme): string => `simulator.commands.${scheme}`;

/** Every topic with its schema, dead-letter topics included: what each process creates at start-up. */
export function topicSpecs(): TopicSpec[] {
  const deadLetterSchema = loadSchema("dead-letter");
  return Object.values(TOPICS).flatMap((t: TopicInfo) => [
    { name: t.name, partitions: t.partitions, schema: loadSchema(t.schema), ...(t.compacted ? { compacted: true } : {}) },
    ...(t.deadLetter ? [{ name: deadLetterTopic(t.name), partitions: 1, schema: deadLetterSchema }] : []),
  ]);
}
