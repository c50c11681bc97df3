// Cardlink's configuration: the environment, parsed once at start-up and passed into factories.
import { z } from "zod";
import { classifyAddress, TARGET_POLICIES, type TargetPolicy } from "../../domain/webhook-targets.ts";

const optionalUrl = z
  .string()
  .trim()
  .min(1)
  .refine((v) => URL.canParse(v), "must be a URL")
  .optional();

const positiveNumber = (fallback: number) => z.coerce.number().finite().positive().default(fallback);

const configSchema = z.object({
  // Loopback by default: a laptop's service is not reachable from the network unless asked (compose sets 0.0.0.0).
  HOST: z.string().trim().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Where hooks may deliver (docs/operations.md); when unset, `local` on a loopback HOST and `public` otherwise.
  WEBHOOK_TARGETS: z.enum(TARGET_POLICIES, { message: "must be local or public" }).optional(),
  // Behind a TLS-terminating proxy: X-Forwarded-Proto says whether the browser's connection was https.
  TRUST_PROXY: z.enum(["true", "false"], { message: "must be true or false" }).default("false").transform((v) => v === "true"),
  // The key idempotency fingerprints are HMACs with; unset, one is generated and kept in the database.
  IDEMPOTENCY_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  HEALTH_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  DATA_DIR: z.string().min(1).default("./.data"),
  DATABASE_URL: optionalUrl,
  // The scheme simulators' own state (simulators/host/store.ts): a simulator role never opens DATABASE_URL.
  SIMULATOR_DATABASE_URL: optionalUrl,
  KAFKA_BROKERS: z
    .string()
    .trim()
    .regex(/^[^,\s]+:\d+(,[^,\s]+:\d+)*$/, "must be host:port[,host:port…]")
    .optional(),
  KAFKA_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, "must be letters, digits, - and _")
    .optional(),
  SCHEMA_REGISTRY_URL: optionalUrl,
  // Where exports are mailed (smtp://user:pass@host:port, smtps:// for TLS from the start); unset, each
  // message is kept in DATA_DIR/mail and shown on the dashboard's mail page.
  SMTP_URL: z
    .string()
    .trim()
    .refine((v) => URL.canParse(v) && ["smtp:", "smtps:"].includes(new URL(v).protocol), "must be an smtp:// or smtps:// URL, such as smtp://localhost:1025")
    .optional(),
  // The From of the mail Cardlink sends; `SERVICE_NAME <no-reply@localhost>` when unset.
  MAIL_FROM: z
    .string()
    .trim()
    .max(254)
    .regex(/^[^\r\n<>@]*(<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, "must be an e-mail address, with a name or without: Cardlink exports <exports@example.com>")
    .optional(),
  // A consumer that sends no heartbeat for the session timeout is dropped from its group and its partitions
  // move to the other members: 10 s moves a dead replica's work within ~10 s (the broker accepts 6–300 s).
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6_000, "must be at least 6000 (the broker's minimum)").max(300_000, "must be at most 300000").default(10_000),
  KAFKA_HEARTBEAT_INTERVAL_MS: z.coerce.number().int().min(100, "must be at least 100").default(3_000),
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  SERVICE_NAME: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9]*$/, "must be letters and digits, starting with a letter (it prefixes header names)")
    .default("Cardlink"),
  CLOCK_SPEED: z.coerce.number().finite().min(0, "must be 0 (frozen) or more").default(1),
  CLOCK_START: z.iso.datetime({ offset: true, message: "must be an ISO 8601 instant" }).optional(),
  RATE_LIMIT_PER_SECOND: positiveNumber(100),
  RATE_LIMIT_BURST: positiveNumber(200),
  // Sandboxes one account may have at once (POST /v1/sandboxes answers 409 past it).
  SANDBOXES_PER_ACCOUNT: z.coerce.number().int().min(1, "must be at least 1").max(1000, "must be at most 1000").default(10),
  // Per client address: presented keys, admin tokens and dashboard sign-ins that fail.
  AUTH_FAILURE_LIMIT_PER_MINUTE: positiveNumber(12),
  AUTH_FAILURE_LIMIT_BURST: positiveNumber(20),
  // The front door's fair admission of test purchases and their clear, void, refund (src/api/admission.ts):
  // how many one api process has in flight, every account together, at most and at least when it cuts them;
  // how far contending accounts let latency grow over its baseline; how many one account may have waiting.
  ADMISSION_MAX_IN_FLIGHT: z.coerce.number().int().min(1, "must be at least 1").default(512),
  ADMISSION_MIN_IN_FLIGHT: z.coerce.number().int().min(1, "must be at least 1").default(4),
  ADMISSION_LATENCY_TOLERANCE: z.coerce.number().finite().min(1, "must be at least 1").default(1.2),
  ADMISSION_QUEUE_PER_ACCOUNT: z.coerce.number().int().min(0, "must be 0 or more").default(1_000),
  // Backpressure: past either bound the front door admits less, the heaviest accounts first.
  ADMISSION_QUALIFIER_LAG_BOUND: z.coerce.number().int().min(1, "must be at least 1").default(10_000),
  ADMISSION_OUTBOX_BACKLOG_BOUND: z.coerce.number().int().min(1, "must be at least 1").default(10_000),
  // Accounts named in per-account metrics (the first seen by the process); the rest are summed as `other`.
  METRICS_ACCOUNT_LABELS: z.coerce.number().int().min(0, "must be 0 or more").max(1_000, "must be at most 1000").default(20),
  // The request log (GET /v1/requests): how long records are kept, in days of each environment's time, and how
  // many records one api process holds for its writer at most (past it, new ones are dropped and counted).
  REQUEST_LOG_RETENTION_DAYS: z.coerce.number().finite().positive("must be more than 0").max(365, "must be at most 365").default(7),
  REQUEST_LOG_BUFFER: z.coerce.number().int().min(100, "must be at least 100").max(1_000_000, "must be at most 1000000").default(5_000),
  SIMULATOR_SEED: z.coerce.number().int().min(0).default(1),
  DRAIN_TIMEOUT_SECONDS: z.coerce.number().finite().positive("must be more than 0").default(30),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type Config = Omit<z.infer<typeof configSchema>, "WEBHOOK_TARGETS"> & { WEBHOOK_TARGETS: TargetPolicy };

/** Whether HOST binds only the loopback interface (`localhost`, 127.0.0.0/8, ::1). */
export const isLoopbackHost = (host: string) => host === "localhost" || classifyAddress(host.replace(/^\[|\]$/g, "")) === "loopback";

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "unset", as shells and compose files commonly write it.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = configSchema.safeParse(present);
  if (parsed.success) {
    // Kafka without a registry is a supported setup (values single-object encoded from the schema
    // files, src/platform/bus/single-object-codec.ts); a registry without Kafka would be silently unused.
    if (parsed.data.SCHEMA_REGISTRY_URL && !parsed.data.KAFKA_BROKERS) {
      throw new ConfigError("Invalid configuration: SCHEMA_REGISTRY_URL is set but KAFKA_BROKERS is not");
    }
    if (parsed.data.KAFKA_HEARTBEAT_INTERVAL_MS * 3 > parsed.data.KAFKA_SESSION_TIMEOUT_MS) {
      throw new ConfigError(
        "Invalid configuration: KAFKA_HEARTBEAT_INTERVAL_MS must be at most a third of KAFKA_SESSION_TIMEOUT_MS, so a missed heartbeat or two does not drop a live consumer",
      );
    }
    if (parsed.data.ADMISSION_MIN_IN_FLIGHT > parsed.data.ADMISSION_MAX_IN_FLIGHT) {
      throw new ConfigError("Invalid configuration: ADMISSION_MIN_IN_FLIGHT must be at most ADMISSION_MAX_IN_FLIGHT");
    }
    const { WEBHOOK_TARGETS, ...rest } = parsed.data;
    return { ...rest, WEBHOOK_TARGETS: WEBHOOK_TARGETS ?? (isLoopbackHost(rest.HOST) ? "local" : "public") };
  }
  const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
}
