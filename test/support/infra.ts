// Where the real servers for integration tests are. Locally an unset variable skips those suites;
// under CI (CI=true) a missing server is a failure, never a silent skip — except the schema registry.
export const infra = {
  databaseUrl: process.env.DATABASE_URL,
  kafkaBrokers: process.env.KAFKA_BROKERS,
  schemaRegistryUrl: process.env.SCHEMA_REGISTRY_URL,
};

const inCi = process.env.CI === "true";

// No Confluent-compatible schema registry can be installed on this project's machines or its CI (that
// part of the infrastructure is blocked; docs/infrastructure.md lists what was tried), so CI cannot be
// required to have one: the registry suites run wherever SCHEMA_REGISTRY_URL is set and skip elsewhere,
// while Kafka without a registry is covered by the single-object codec. PostgreSQL and Kafka stay mandatory.
const optionalInCi: ReadonlySet<keyof typeof infra> = new Set(["schemaRegistryUrl"]);

/** True when the named servers are configured; under CI throws when a server CI must have is missing. */
export function haveInfra(...names: (keyof typeof infra)[]): boolean {
  const missing = names.filter((n) => !infra[n]);
  if (missing.length === 0) return true;
  const required = missing.filter((n) => !optionalInCi.has(n));
  if (inCi && required.length) throw new Error(`CI=true but ${required.join(", ")} is not set: integration servers must run in CI`);
  return false;
}
