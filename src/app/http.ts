// The API on a TCP port, with a close that lets every request in flight be answered.
import { Server, type AddressInfo } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";
import { serve } from "@hono/node-server";
import { createApp } from "../api/app.ts";
import { inProcessApi } from "../api/middleware/auth.ts";
import { mountDashboard } from "../dashboard/index.tsx";
import type { Runtime } from "./runtime.ts";
import { isLoopbackHost } from "../platform/config/index.ts";
import { listenError } from "./port.ts";

export interface Listening {
  url: string;
  /** The address and port bound (HOST, PORT). */
  address: AddressInfo;
  /** Stops accepting connections and resolves once every request in flight has been answered. */
  close(): Promise<void>;
}

/** How a URL names the bound address: `localhost` for loopback and every-interface binds, the address itself otherwise. */
function urlHost(host: string): string {
  if (isLoopbackHost(host) || host === "0.0.0.0" || host === "::") return "localhost";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** The API with the dashboard mounted beside it, reaching the API through the in-process port: what the port serves. */
export function createWebApp(services: Runtime, options: { adminToken: string }) {
  return createApp(services, {
    ...options,
    mount: (app) => mountDashboard(app, { adminToken: options.adminToken, api: inProcessApi(app, services.config.SERVICE_NAME) }),
  });
}

export function serveApi(services: Runtime, adminToken: string): Promise<Listening> {
  const app = createWebApp(services, { adminToken });
  return new Promise((resolve, reject) => {
    const { HOST } = services.config;
    const server = serve({ fetch: app.fetch, port: services.config.PORT, hostname: HOST }, (info) =>
      resolve({ url: `http://${urlHost(HOST)}:${info.port}`, address: info, close }),
    );
    server.once("error", (err) => reject(listenError(services.config.PORT, err)));
    // Node's own close() also destroys the connections it deems idle, and with them requests a client
    // has sent that the server has not read yet (they reset). A drain here only stops listening: every
    // answer from then on says `Connection: close`, and idle connections end at the keep-alive timeout.
    const open = new Set<ServerResponse>();
    let closing = false;
    server.on("request", (_req: IncomingMessage, res: ServerResponse) => {
      if (closing) res.setHeader("Connection", "close");
      open.add(res);
      res.once("close", () => open.delete(res));
    });
    function close() {
      return new Promise<void>((done) => {
        closing = true;
        // A long-poll of the request log (GET /v1/requests?wait=…) answers now rather than at the end of its wait.
        services.requestLog.endWaits();
        Server.prototype.close.call(server, () => done());
        for (const res of open) if (!res.headersSent) res.setHeader("Connection", "close");
      });
    }
  });
}
