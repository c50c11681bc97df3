// `cardlink api`: the HTTP API alone, on a system of its own (its health on HEALTH_PORT when set).
import { resolveAdminToken } from "../../platform/config/credentials.ts";
import { command } from "../args.ts";

export const api = command({
  usage: `  api                       the HTTP API only
`,
  options: {},
  async run(_parsed, config) {
    const [{ checkPortFree }, { openSystem }] = await Promise.all([import("../../app/port.ts"), import("../../app/system.ts")]);
    await checkPortFree(config.PORT);
    const system = await openSystem(config, { command: "api", bus: true });
    const server = await system.serveApi(resolveAdminToken(config).token);
    await system.serveHealth("api");
    system.closeOnSignal();
    system.services.log.info({ url: server.url }, "api listening");
  },
});
