// How kafkajs's log lines reach Cardlink's log: a rebalance is the group at work (info), a broker that
// cannot be reached is reported once by the health watch (kafkajs's line per attempt at debug), a
// consumer's crash is an error and its restart a warning, and anything else keeps kafkajs's own level.
import { logLevel } from "kafkajs";
import { describe, expect, it } from "vitest";
import { kafkaLogLevel } from "../../../src/platform/bus/kafka-log.ts";

const entry = (level: logLevel, message: string, extra: Record<string, unknown> = {}) => ({ level, log: { message, timestamp: "", logger: "kafkajs", ...extra } });

describe("kafkajs log levels", () => {
  it.each([
    [entry(logLevel.ERROR, "[Runner] The group is rebalancing, re-joining", { error: "The group is rebalancing, so a rejoin is needed" }), "info"],
    [entry(logLevel.ERROR, "[Connection] Response Heartbeat(key: 12, version: 3)", { error: "The group is rebalancing, so a rejoin is needed" }), "info"],
    [entry(logLevel.ERROR, "[Connection] Connection error: connect ECONNREFUSED 127.0.0.1:9092"), "debug"],
    [entry(logLevel.ERROR, "[BrokerPool] Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED"), "debug"],
    [entry(logLevel.ERROR, "[Consumer] Crash: KafkaJSNonRetriableError: Invalid schema"), "error"],
    [entry(logLevel.ERROR, "Crash: KafkaJSNumberOfRetriesExceeded: Connection error: connect ECONNREFUSED 127.0.0.1:9092"), "error"],
    [entry(logLevel.ERROR, "Restarting the consumer in 300ms"), "warn"],
    [entry(logLevel.ERROR, "Response CreateTopics(key: 19, version: 3)", { error: "Topic creation errors" }), "debug"],
    // A partition whose leader is not known yet (just after its topic was made): kafkajs refreshes and retries.
    [entry(logLevel.ERROR, "Response ListOffsets(key: 2, version: 3)", { error: "This server is not the leader for that topic-partition" }), "debug"],
    [entry(logLevel.WARN, "[Producer] Some unusual thing"), "warn"],
  ] as const)("%j → %s", (e, level) => {
    expect(kafkaLogLevel(e)).toBe(level);
  });
});
