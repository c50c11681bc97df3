// Topic and consumer group names on the broker: the bus's own names behind the deployment's namespace,
// so several deployments or test runs share a cluster while the bus's users see the plain names.
export interface BrokerNames {
  onBroker(name: string): string;
  fromBroker(name: string): string;
}

export function brokerNames(namespace: string | undefined): BrokerNames {
  const prefix = namespace ? `${namespace}.` : "";
  return { onBroker: (name) => prefix + name, fromBroker: (name) => name.slice(prefix.length) };
}
