// For the broker half of the Kafka tests where no schema registry can run (none installs on this
// project's machines, see docs/infrastructure.md): values Avro-encoded with the topic's schema itself.
// The registry half stays with registryCodec, gated on SCHEMA_REGISTRY_URL.
import { avroType } from "../../src/bus/avro.ts";
import type { ValueCodec } from "../../src/bus/kafka.ts";

export function schemaFileCodec(): ValueCodec {
  const types = new Map<string, ReturnType<typeof avroType>>();
  const typeOf = (topic: string) => {
    const type = types.get(topic);
    if (!type) throw new Error(`${topic}: no schema`);
    return type;
  };
  return {
    register: async (topic, schema) => void types.set(topic, avroType(schema)),
    encode: async (topic, value) => typeOf(topic).toBuffer(value),
    decode: async (topic, bytes) => typeOf(topic).fromBuffer(bytes),
  };
}
