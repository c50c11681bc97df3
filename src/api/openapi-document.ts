// The OpenAPI document of a default configuration, without a server or a database: what the typed
// client in clients/typescript is generated from.
import { loadConfig } from "../config/index.ts";
import { createClock } from "../clock/index.ts";
import { openPglite } from "../services/db.ts";
import { createEmbeddedLog } from "../bus/embedded-log.ts";
import { assembleServices } from "../runtime.ts";
import { createApp } from "./app.ts";

/** `/v1/openapi.json` as an app with the default SERVICE_NAME answers it. No route is called but that one. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ LOG_LEVEL: "silent" });
  const db = await openPglite(undefined);
  const bus = createEmbeddedLog();
  try {
    const services = assembleServices({ config, db, clock: createClock({ speed: 0 }), bus });
    const res = await createApp(services, { adminToken: "unused-while-generating-the-document" }).request("/v1/openapi.json");
    return (await res.json()) as Record<string, unknown>;
  } finally {
    await bus.close();
    await db.close();
  }
}
