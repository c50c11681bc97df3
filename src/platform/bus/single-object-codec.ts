// Kafka values without a schema registry: Avro single-object encoding (Avro specification, "Single
// object encoding"). Each value is C3 01, the CRC-64-AVRO fingerprint of the writer schema's Parsing
// Canonical Form (8 bytes, little-endian) and the Avro binary body. A reader finds the writer schema by
// its fingerprint among this repository's schema files (every version a topic has had) and the schemas
// registered in the process, and resolves it to the topic's current schema.
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type avro from "avsc";
import { avroType } from "./avro.ts";
import type { AvroSchema } from "./bus.ts";
import { BusError } from "./bus.ts";
import type { ValueCodec } from "./kafka.ts";

const MARKER = [0xc3, 0x01];
const HEADER_BYTES = 10;

// CRC-64-AVRO (a Rabin fingerprint): the specification's reference algorithm, on 64-bit BigInts.
const EMPTY = 0xc15d213aa4d7a795n;
const TABLE = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let bit = 0; bit < 8; bit++) fp = (fp >> 1n) ^ (EMPTY & -(fp & 1n));
  return fp;
});

/** CRC-64-AVRO of `bytes`, as an unsigned 64-bit number (Java's long is BigInt.asIntN(64, it)). */
export function crc64Avro(bytes: Uint8Array): bigint {
  let fp = EMPTY;
  for (const byte of bytes) fp = (fp >> 8n) ^ TABLE[Number((fp ^ BigInt(byte)) & 0xffn)]!;
  return fp;
}

/** The schema's Parsing Canonical Form: what avsc's `schema()` gives (full names, parsing attributes only). */
export function parsingCanonicalForm(type: avro.Type): string {
  return JSON.stringify(type.schema());
}

export const fingerprintOf = (type: avro.Type): bigint => crc64Avro(Buffer.from(parsingCanonicalForm(type), "utf8"));

const SCHEMA_DIR = fileURLToPath(new URL("./schemas/", import.meta.url));

export interface SingleObjectCodecOptions {
  /** The folder whose `.avsc` files (in subfolders too) are every schema version values can be written with. */
  schemaDir?: string;
}

/**
 * Every `.avsc` under src/platform/bus/schemas is a version some topic has had: the current one of each
 * schema, and the earlier ones kept (e.g. in schemas/previous/) so values written with them still
 * decode. A new version must read every earlier one of its name (BACKWARD_TRANSITIVE, in registry terms).
 */
export function singleObjectCodec(options: SingleObjectCodecOptions = {}): ValueCodec {
  const dir = options.schemaDir ?? SCHEMA_DIR;
  const writers = new Map<bigint, avro.Type>();
  for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".avsc")).sort()) {
    const type = avroType(JSON.parse(readFileSync(`${dir}/${file}`, "utf8")) as AvroSchema);
    writers.set(fingerprintOf(type), type);
  }
  const readers = new Map<string, { type: avro.Type; fingerprint: bigint }>();
  const resolvers = new Map<string, avro.Resolver>();

  const readerOf = (topic: string) => {
    const reader = readers.get(topic);
    if (!reader) throw new BusError(`${topic}: no schema registered`);
    return reader;
  };

  return {
    async register(topic, schema) {
      const type = avroType(schema);
      const fingerprint = fingerprintOf(type);
      if (type.name) {
        for (const [earlier, writer] of writers) {
          if (earlier === fingerprint || writer.name !== type.name) continue;
          try {
            type.createResolver(writer);
          } catch (err) {
            const reason = err instanceof Error ? err.message : String(err);
            throw new BusError(`${topic}: ${type.name} cannot read values written with an earlier version of it (${reason})`);
          }
        }
      }
      writers.set(fingerprint, type);
      readers.set(topic, { type, fingerprint });
    },
    async encode(topic, value) {
      const { type, fingerprint } = readerOf(topic);
      const header = Buffer.alloc(HEADER_BYTES);
      header.set(MARKER);
      header.writeBigUInt64LE(fingerprint, 2);
      return Buffer.concat([header, type.toBuffer(value)]);
    },
    async decode(topic, bytes) {
      if (bytes.length < HEADER_BYTES || bytes[0] !== MARKER[0] || bytes[1] !== MARKER[1]) {
        throw new BusError("not Avro single-object encoded (no C3 01 header)");
      }
      const fingerprint = bytes.readBigUInt64LE(2);
      const writer = writers.get(fingerprint);
      if (!writer) {
        throw new BusError(`no known schema has fingerprint ${fingerprint.toString(16).padStart(16, "0")} (written by another version of Cardlink?)`);
      }
      const reader = readerOf(topic);
      const body = bytes.subarray(HEADER_BYTES);
      if (fingerprint === reader.fingerprint) return reader.type.fromBuffer(body);
      const key = `${topic}\u0000${reader.fingerprint}\u0000${fingerprint}`;
      let resolver = resolvers.get(key);
      if (!resolver) {
        resolver = reader.type.createResolver(writer);
        resolvers.set(key, resolver);
      }
      return reader.type.fromBuffer(body, resolver);
    },
  };
}
