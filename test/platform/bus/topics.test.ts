// The topic registry: every schema file compiles, every consumed topic has its dead-letter topic, and the
// documentation's topics table says what the code does.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { avroType } from "../../../src/platform/bus/avro.ts";
import { deadLetterTopic } from "../../../src/platform/bus/dead-letter.ts";
import { TOPICS, topicSpecs } from "../../../src/platform/bus/topics.ts";
import { murmur2, partitionFor } from "../../../src/platform/bus/partitioner.ts";

describe("topic registry", () => {
  it("gives every topic a compiling schema and a dead-letter topic", () => {
    const specs = topicSpecs();
    const names = specs.map((s) => s.name);
    for (const topic of Object.values(TOPICS)) {
      expect(names).toContain(topic.name);
      expect(names).toContain(deadLetterTopic(topic.name));
    }
    expect(new Set(names).size).toBe(names.length);
    for (const spec of specs) expect(() => avroType(spec.schema)).not.toThrow();
  });

  it("is the table docs/bus-and-simulators.md shows", () => {
    const doc = readFileSync(new URL("../../../docs/bus-and-simulators.md", import.meta.url), "utf8");
    for (const t of Object.values(TOPICS)) {
      const row = `| \`${t.name}\` | ${t.key} | [\`${t.schema}\`](../src/platform/bus/schemas/${t.schema}.avsc) | ${t.partitions} | ${t.producers.join("; ")} | ${t.consumers.join("; ")} | \`${deadLetterTopic(t.name)}\` |`;
      expect(doc).toContain(row);
    }
  });
});

describe("partitioner", () => {
  it("is Kafka's murmur2: known values of the Java client", () => {
    // Values from org.apache.kafka.common.utils.Utils.murmur2 (Kafka's own partitioner tests).
    const cases: [string, number][] = [
      ["21", -973932308],
      ["foobar", -790332482],
      ["a-little-bit-long-string", -985981536],
      ["a-little-bit-longer-string", -1486304829],
      ["lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971],
      ["abc", 479470107],
    ];
    for (const [key, hash] of cases) expect(murmur2(Buffer.from(key))).toBe(hash);
    expect(partitionFor("foobar", 6)).toBe((-790332482 & 0x7fffffff) % 6);
  });
});
