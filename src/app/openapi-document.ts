// The OpenAPI document of a default configuration, without a server or a database of its own: what the
// typed client in clients/typescript is generated from.
import { loadConfig } from "../platform/config/index.ts";
import { createClock } from "../platform/clock/index.ts";
import { openPglite } from "../platform/db.ts";
import { createEmbeddedLog } from "../platform/bus/embedded-log.ts";
import { createApp } from "../api/app.ts";
import { assembleSystem } from "./system.ts";

/** `/v1/openapi.json` as an app with the default SERVICE_NAME answers it. No route is called but that one. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const system = assembleSystem({ config: loadConfig({ LOG_LEVEL: "silent" }), db: await openPglite(undefined), clock: createClock({ speed: 0 }), bus: createEmbeddedLog() });
  try {
    const res = await createApp(system.services, { adminToken: "unused-while-generating-the-document" }).request("/v1/openapi.json");
    return (await res.json()) as Record<string, unknown>;
  } finally {
    await system.close();
  }
}
