import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/platform/config/index.ts";

describe("configuration", () => {
  it("has the defaults DESIGN.md gives", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      DATA_DIR: "./.data",
      SERVICE_NAME: "Cardlink",
      CLOCK_SPEED: 1,
      RATE_LIMIT_PER_SECOND: 100,
      RATE_LIMIT_BURST: 200,
      SIMULATOR_SEED: 1,
      LOG_LEVEL: "info",
      KAFKA_SESSION_TIMEOUT_MS: 10_000,
      KAFKA_HEARTBEAT_INTERVAL_MS: 3_000,
      ADMISSION_MAX_IN_FLIGHT: 512,
      ADMISSION_MIN_IN_FLIGHT: 4,
      ADMISSION_LATENCY_TOLERANCE: 1.2,
      ADMISSION_QUEUE_PER_ACCOUNT: 1_000,
      ADMISSION_QUALIFIER_LAG_BOUND: 10_000,
      ADMISSION_OUTBOX_BACKLOG_BOUND: 10_000,
      METRICS_ACCOUNT_LABELS: 20,
    });
    for (const unset of ["DATABASE_URL", "KAFKA_BROKERS", "SCHEMA_REGISTRY_URL", "ADMIN_TOKEN", "CLOCK_START"] as const) {
      expect(config[unset], unset).toBeUndefined();
    }
  });

  it("parses every variable it is given", () => {
    const config = loadConfig({
      PORT: "8080",
      DATA_DIR: "/var/lib/cardlink",
      DATABASE_URL: "postgres://u:p@db:5432/cardlink",
      KAFKA_BROKERS: "k1:9092,k2:9092",
      SCHEMA_REGISTRY_URL: "http://registry:8081",
      ADMIN_TOKEN: "adm_0123456789abcdef",
      SERVICE_NAME: "Linky",
      CLOCK_SPEED: "86400",
      CLOCK_START: "2026-03-01T00:00:00Z",
      RATE_LIMIT_PER_SECOND: "5",
      RATE_LIMIT_BURST: "10",
      SIMULATOR_SEED: "42",
      LOG_LEVEL: "debug",
    });
    expect(config).toMatchObject({
      PORT: 8080,
      KAFKA_BROKERS: "k1:9092,k2:9092",
      SERVICE_NAME: "Linky",
      CLOCK_SPEED: 86400,
      CLOCK_START: "2026-03-01T00:00:00Z",
      RATE_LIMIT_PER_SECOND: 5,
      SIMULATOR_SEED: 42,
    });
  });

  it("treats an empty variable as unset", () => {
    const config = loadConfig({ PORT: "", DATABASE_URL: "" });
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it("takes Kafka without a schema registry (values single-object encoded), not a registry without Kafka", () => {
    const config = loadConfig({ KAFKA_BROKERS: "127.0.0.1:9092" });
    expect(config.KAFKA_BROKERS).toBe("127.0.0.1:9092");
    expect(config.SCHEMA_REGISTRY_URL).toBeUndefined();
    expect(() => loadConfig({ SCHEMA_REGISTRY_URL: "http://registry:8081" })).toThrow(/SCHEMA_REGISTRY_URL is set but KAFKA_BROKERS is not/);
  });

  it("stops with a message naming each bad variable and its rule", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: "70000" }, /PORT:/],
      [{ PORT: "http" }, /PORT:/],
      [{ DATABASE_URL: "not a url" }, /DATABASE_URL: must be a URL/],
      [{ KAFKA_BROKERS: "localhost" }, /KAFKA_BROKERS: must be host:port/],
      [{ ADMIN_TOKEN: "short" }, /ADMIN_TOKEN: must be at least 16 characters/],
      [{ SERVICE_NAME: "Card-link" }, /SERVICE_NAME: must be letters and digits/],
      [{ CLOCK_SPEED: "-1" }, /CLOCK_SPEED: must be 0 \(frozen\) or more/],
      [{ CLOCK_START: "yesterday" }, /CLOCK_START: must be an ISO 8601 instant/],
      [{ RATE_LIMIT_PER_SECOND: "0" }, /RATE_LIMIT_PER_SECOND:/],
      [{ RATE_LIMIT_BURST: "lots" }, /RATE_LIMIT_BURST:/],
      [{ LOG_LEVEL: "loud" }, /LOG_LEVEL:/],
      [{ SCHEMA_REGISTRY_URL: "http://registry:8081" }, /SCHEMA_REGISTRY_URL is set but KAFKA_BROKERS is not/],
      [{ KAFKA_SESSION_TIMEOUT_MS: "1000" }, /KAFKA_SESSION_TIMEOUT_MS: must be at least 6000/],
      [{ KAFKA_HEARTBEAT_INTERVAL_MS: "5000" }, /KAFKA_HEARTBEAT_INTERVAL_MS must be at most a third of KAFKA_SESSION_TIMEOUT_MS/],
      [{ ADMISSION_LATENCY_TOLERANCE: "0.5" }, /ADMISSION_LATENCY_TOLERANCE: must be at least 1/],
      [{ ADMISSION_MIN_IN_FLIGHT: "64", ADMISSION_MAX_IN_FLIGHT: "16" }, /ADMISSION_MIN_IN_FLIGHT must be at most ADMISSION_MAX_IN_FLIGHT/],
      [{ METRICS_ACCOUNT_LABELS: "5000" }, /METRICS_ACCOUNT_LABELS: must be at most 1000/],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
    }
    // Several bad variables are reported together.
    expect(() => loadConfig({ PORT: "-1", LOG_LEVEL: "loud" })).toThrow(/PORT:[\s\S]*LOG_LEVEL:/);
  });
});
