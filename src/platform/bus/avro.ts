// Avro schemas of the bus: loaded from ./schemas/*.avsc, compiled once, and used to check values the
// same way on both implementations (Kafka additionally encodes with them through the registry).
import { readFileSync } from "node:fs";
import avro from "avsc";
import { BusValidationError, type AvroSchema } from "./bus.ts";


const dir = new URL("./schemas/", import.meta.url);

/** Reads one schema file, e.g. `loadSchema("visa-transaction")` for schemas/visa-transaction.avsc. */
export function loadSchema(name: string): AvroSchema {
  return JSON.parse(readFileSync(new URL(`${name}.avsc`, dir), "utf8")) as AvroSchema;
}

const compiled = new WeakMap<AvroSchema, avro.Type>();

export function avroType(schema: AvroSchema): avro.Type {
  let type = compiled.get(schema);
  if (!type) {
    type = avro.Type.forSchema(schema as avro.Schema);
    compiled.set(schema, type);
  }
  return type;
}

/**
 * The value as a reader of the schema sees it: validated (every bad field named), fields with defaults
 * filled in, unknown fields dropped. Throws BusValidationError.
 */
export function normalize(topic: string, schema: AvroSchema, value: unknown): unknown {
  const type = avroType(schema);
  const problems: string[] = [];
  type.isValid(value, {
    errorHook: (path: string[], got: unknown) => {
      problems.push(`${path.length ? path.join(".") : "value"}: does not match the schema (got ${describe(got)})`);
    },
  });
  if (problems.length) throw new BusValidationError(`${topic}: ${problems.join("; ")}`);
  return type.fromBuffer(type.toBuffer(value));
}

const describe = (v: unknown) => (v === undefined ? "undefined" : JSON.stringify(v)?.slice(0, 60));
