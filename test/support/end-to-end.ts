// The end-to-end suites' world: a harness on each shape the machine can run (the embedded defaults always,
// PostgreSQL and Kafka when they are there), every role running in it, and a receiver for the webhooks.
import { startRoles, type RunningRoles } from "../../src/app/roles.ts";
import { createHarness, type BusKind, type Engine, type Harness } from "./harness.ts";
import { haveInfra } from "./infra.ts";
import { startReceiver, type Receiver } from "./receiver.ts";

export type Shape = { engine: Engine; bus: BusKind };

export const SHAPES: Shape[] = [
  { engine: "pglite", bus: "embedded" },
  ...(haveInfra("databaseUrl") ? [{ engine: "postgres", bus: "embedded" } as const] : []),
  ...(haveInfra("kafkaBrokers", "databaseUrl") ? [{ engine: "postgres", bus: "kafka" } as const] : []),
];

export interface EndToEnd {
  h: Harness;
  receiver: Receiver;
  roles: RunningRoles;
  stop(): Promise<void>;
}

/** A harness of `shape` with the simulators, qualifier, dispatcher and workers running, and a receiver. */
export async function startEndToEnd(shape: Shape): Promise<EndToEnd> {
  const h = await createHarness(shape);
  const receiver = await startReceiver();
  const roles = await startRoles(h.services, ["simulators", "qualifier", "dispatcher", "workers"], { dispatchPollMs: 20 });
  return {
    h,
    receiver,
    roles,
    async stop() {
      await roles.stop();
      await receiver.close();
      await h.close();
    },
  };
}
