"""Reads topics with Confluent's own Python client, not Cardlink's code: values decoded by its
AvroDeserializer through the schema registry (the schema id in each message's Confluent wire-format
header). Prints one JSON line per message, {"topic", "key", "value"}, until `count` messages have come
or `timeout` seconds have passed (then exits 1 saying how many came).

    python confluent_consumer.py BROKERS REGISTRY_URL GROUP COUNT TIMEOUT TOPIC...
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext


def main() -> int:
    brokers, registry_url, group, count, timeout, *topics = sys.argv[1:]
    deserialize = AvroDeserializer(SchemaRegistryClient({"url": registry_url}))
    consumer = Consumer({
        "bootstrap.servers": brokers,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    })
    consumer.subscribe(topics)
    seen = 0
    deadline = time.monotonic() + float(timeout)
    try:
        while seen < int(count) and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                continue
            if message.error():
                raise KafkaException(message.error())
            value = deserialize(message.value(), SerializationContext(message.topic(), MessageField.VALUE))
            key = message.key().decode("utf-8") if message.key() is not None else None
            print(json.dumps({"topic": message.topic(), "key": key, "value": value}), flush=True)
            seen += 1
    finally:
        consumer.close()
    if seen < int(count):
        print(f"saw {seen} of {count} messages in {timeout} s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
