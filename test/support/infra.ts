// Where the real servers for integration tests are. Locally an unset variable skips those suites;
// under CI (CI=true) a missing server is a failure, never a silent skip.
export const infra = {
  databaseUrl: process.env.DATABASE_URL,
  kafkaBrokers: process.env.KAFKA_BROKERS,
  schemaRegistryUrl: process.env.SCHEMA_REGISTRY_URL,
  /** Mailpit's SMTP (scripts/stack), and its HTTP API where tests read the messages back. */
  smtpTestUrl: process.env.SMTP_TEST_URL,
  mailpitApiUrl: process.env.MAILPIT_API_URL,
};

const inCi = process.env.CI === "true";

/** True when the named servers are configured; under CI throws when one of them is missing. */
export function haveInfra(...names: (keyof typeof infra)[]): boolean {
  const missing = names.filter((n) => !infra[n]);
  if (missing.length === 0) return true;
  if (inCi) throw new Error(`CI=true but ${missing.join(", ")} is not set: integration servers must run in CI`);
  return false;
}
