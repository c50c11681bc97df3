// `cardlink qualifier|dispatcher|workers`: one background role in a process of its own, until a signal.
import { command, UsageError } from "../args.ts";

type Role = "qualifier" | "dispatcher" | "workers";

const roleCommand = (role: Role, usage: string) =>
  command({
    usage,
    options: {},
    async run(_parsed, config) {
      if (role === "qualifier" && !config.KAFKA_BROKERS) throw new UsageError("qualifier: set KAFKA_BROKERS (npm start runs the qualifier on the embedded log)");
      const { openSystem } = await import("../../app/system.ts");
      const system = await openSystem(config, { command: role, bus: true });
      await system.startRoles([role]);
      const healthPort = await system.serveHealth(role);
      system.closeOnSignal();
      system.services.log.info({ role, ...(healthPort ? { healthPort } : {}) }, "role running");
    },
  });

export const qualifier = roleCommand("qualifier", `  qualifier                 the streaming qualifier (on Kafka)
`);
export const dispatcher = roleCommand("dispatcher", `  dispatcher                the webhook dispatcher
`);
export const workers = roleCommand("workers", `  workers                   due work on the service clock (consents, marketplace, offboarding, return periods)
                            and the network lifecycle: onboarding requests, look-ups, enrolments, replies
`);
