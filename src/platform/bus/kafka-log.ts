// kafkajs's log lines in Cardlink's log, each at the level it deserves. kafkajs hands its logger text
// only (the message, and the error's message as a string), so the line's words are all there is to
// classify it by; nothing but the log level depends on them.
import { logLevel, type LogEntry } from "kafkajs";
import type { Logger } from "pino";

// kafkajs logs a group rebalance and every failed connection attempt as an error. A rebalance is the
// group working as designed (a replica joined or left): info. A broker that cannot be reached is reported
// once, as a warning, by the bus's health watch (src/health), and again when it is back; kafkajs's own
// line per attempt is kept at debug. A consumer crash stays an error, whatever caused it, and its restart
// a warning.
const REBALANCE = /rebalanc|re-joining|group coordinator|not coordinator|member id|generation/i;
const CONNECTION = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|connection (error|timeout|closed|refused)|broker not connected|closed connection|disconnected|leadership election|not (the )?leader|there is no leader/i;

/** The pino level of one kafkajs log entry. */
export function kafkaLogLevel(entry: Pick<LogEntry, "level" | "log">): "error" | "warn" | "info" | "debug" {
  const text = `${entry.log.message} ${String(entry.log.error ?? "")} ${String(entry.log.stack ?? "")}`;
  // A consumer that crashed (and is restarted, rejoining its group) is always worth a line, whatever the cause.
  if (entry.log.message.startsWith("Crash:")) return "error";
  if (entry.log.message.startsWith("Restarting the consumer")) return "warn";
  // Creating topics that exist already (every start after the first) is answered with per-topic errors.
  if (entry.log.message.startsWith("Response CreateTopics") && entry.log.error === "Topic creation errors") return "debug";
  if (REBALANCE.test(text)) return "info";
  if (CONNECTION.test(text)) return "debug";
  return entry.level <= logLevel.ERROR ? "error" : "warn";
}

/** kafkajs's logCreator writing to `log` (nothing without one). */
export const kafkaLogCreator = (log: Logger | undefined) => () => (entry: LogEntry) =>
  log?.[kafkaLogLevel(entry)]({ kafka: entry.namespace, ...entry.log }, entry.log.message);
