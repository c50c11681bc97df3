// Opens the bus the configuration asks for: Kafka when KAFKA_BROKERS is set, else the embedded log
// persisted in DATA_DIR/bus; then creates every topic and registers every schema.
import { join } from "node:path";
import type { Logger } from "pino";
import { ConfigError, type Config } from "../config/index.ts";
import type { Clock } from "../clock/index.ts";
import type { Bus } from "./bus.ts";
import { createEmbeddedLog } from "./embedded-log.ts";
import { createKafkaBus, registryCodec } from "./kafka.ts";
import { topicSpecs } from "./topics.ts";

export async function openBus(config: Config, clock: Clock, log: Logger): Promise<Bus> {
  let bus: Bus;
  if (config.KAFKA_BROKERS) {
    if (!config.SCHEMA_REGISTRY_URL) throw new ConfigError("Invalid configuration: KAFKA_BROKERS is set but SCHEMA_REGISTRY_URL is not (Kafka values are Avro through the registry)");
    bus = createKafkaBus({
      brokers: config.KAFKA_BROKERS.split(","),
      codec: registryCodec(config.SCHEMA_REGISTRY_URL),
      clientId: `cardlink-${process.pid}`,
      log: log.child({ component: "bus" }),
      now: () => clock.now(),
    });
  } else {
    bus = createEmbeddedLog({ dir: join(config.DATA_DIR, "bus"), log: log.child({ component: "bus" }) });
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
    async close() {
      if (opened) await (await opened).close();
    },
  };
}
