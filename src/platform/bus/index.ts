// Opens the bus the configuration asks for: Kafka when KAFKA_BROKERS is set (values through the schema
// registry at SCHEMA_REGISTRY_URL, else single-object encoded from the schema files), else the embedded
// log persisted in DATA_DIR/bus; then creates every topic and registers every schema.
import { join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config/index.ts";
import type { Clock } from "../clock/index.ts";
import type { Bus, ConsumerObserver } from "./bus.ts";
import { createEmbeddedLog } from "./embedded-log.ts";
import { createKafkaBus, registryCodec } from "./kafka.ts";
import { singleObjectCodec } from "./single-object-codec.ts";
import { topicSpecs } from "./topics.ts";

/** `observer` is told of every batch a consumer commits (the process's metrics). */
export async function openBus(config: Config, clock: Clock, log: Logger, observer?: ConsumerObserver): Promise<Bus> {
  let bus: Bus;
  if (config.KAFKA_BROKERS) {
    const busLog = log.child({ component: "bus" });
    const registry = config.SCHEMA_REGISTRY_URL;
    if (registry) busLog.info({ codec: "schema registry", registry }, "Kafka values: Avro in the Confluent wire format through the schema registry");
    else busLog.info({ codec: "single-object" }, "Kafka values: Avro single-object encoding with the schema files (no SCHEMA_REGISTRY_URL)");
    bus = createKafkaBus({
      brokers: config.KAFKA_BROKERS.split(","),
      codec: registry ? registryCodec(registry) : singleObjectCodec(),
      clientId: `cardlink-${process.pid}`,
      consumer: {
        sessionTimeout: config.KAFKA_SESSION_TIMEOUT_MS,
        heartbeatInterval: config.KAFKA_HEARTBEAT_INTERVAL_MS,
        // A rebalance waits this long for members to rejoin; a batch in hand commits well within it.
        rebalanceTimeout: Math.max(config.KAFKA_SESSION_TIMEOUT_MS * 3, 30_000),
      },
      ...(config.KAFKA_NAMESPACE ? { namespace: config.KAFKA_NAMESPACE } : {}),
      log: busLog,
      now: () => clock.now(),
      ...(observer ? { observer } : {}),
    });
  } else {
    bus = createEmbeddedLog({ dir: join(config.DATA_DIR, "bus"), log: log.child({ component: "bus" }), now: () => clock.now(), ...(observer ? { observer } : {}) });
  }
  await bus.createTopics(topicSpecs());
  return bus;
}

/**
 * A bus opened on first use: every process gets one in its services, but commands that never touch
 * it (migrate, account create) neither connect to Kafka nor take the embedded log's folder.
 */
export function lazyBus(open: () => Promise<Bus>, kind: Bus["kind"]): Bus {
  let opened: Promise<Bus> | undefined;
  const bus = () => (opened ??= open());
  return {
    kind,
    createTopics: async (specs) => (await bus()).createTopics(specs),
    publish: async (topic, key, value) => (await bus()).publish(topic, key, value),
    subscribe: async (options) => (await bus()).subscribe(options),
    lag: async (groupId, topics) => (await bus()).lag(groupId, topics),
    async close() {
      if (opened) await (await opened).close();
    },
  };
}
