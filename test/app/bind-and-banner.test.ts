// Rule: the server listens on HOST only, which is 127.0.0.1 unless set (compose sets 0.0.0.0), and webhook
// targets follow it (local on loopback, public elsewhere); off loopback, `npm start` says where the admin
// token and the demo keys are kept and prints none of them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../support/harness.ts";
import { loadConfig } from "../../src/platform/config/index.ts";
import { serveApi } from "../../src/app/http.ts";
import { serveHealth } from "../../src/platform/health/server.ts";
import { startBanner } from "../../src/cli/banner.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ env: { PORT: "0" } });
});
afterAll(() => h.close());

const admin = { token: "adm_printed_only_on_loopback_123", generated: true };
const demo = { accountId: "0b8d5a52-3f0e-4c4e-9a51-7f1c2d3e4f50", test: "sk_test_demokey000000", live: "sk_live_demokey000000" };

describe("bind", () => {
  it("defaults HOST to 127.0.0.1, and webhook targets to local on loopback and public elsewhere", () => {
    expect(loadConfig({}).HOST).toBe("127.0.0.1");
    expect(loadConfig({}).WEBHOOK_TARGETS).toBe("local");
    expect(loadConfig({ HOST: "0.0.0.0" }).WEBHOOK_TARGETS).toBe("public");
    expect(loadConfig({ HOST: "::1" }).WEBHOOK_TARGETS).toBe("local");
    expect(loadConfig({ HOST: "0.0.0.0", WEBHOOK_TARGETS: "local" }).WEBHOOK_TARGETS).toBe("local");
    expect(() => loadConfig({ WEBHOOK_TARGETS: "anywhere" })).toThrow(/WEBHOOK_TARGETS: must be local or public/);
  });

  it("the API and the health port listen on HOST only", async () => {
    const api = await serveApi(h.services, "adm_test_token_0123456789abcdef");
    try {
      expect(api.address.address).toBe("127.0.0.1");
      expect(api.url).toBe(`http://localhost:${api.address.port}`);
      expect((await fetch(`http://127.0.0.1:${api.address.port}/health`)).status).toBe(200);
    } finally {
      await api.close();
    }
    const health = await serveHealth(h.services.health, 0, "test", h.services.metrics, h.config.HOST);
    try {
      expect(health.address()).toMatchObject({ address: "127.0.0.1" });
    } finally {
      await new Promise((resolve) => health.close(resolve));
    }
  });
});

describe("banner", () => {
  it("prints the admin token and demo keys on loopback, for the local quick start", () => {
    const banner = startBanner(loadConfig({}), "http://localhost:3000", admin, demo);
    expect(banner).toContain(admin.token);
    expect(banner).toContain(demo.test);
  });

  it("off loopback, says where they are kept and prints none of them", () => {
    const config = loadConfig({ HOST: "0.0.0.0", DATA_DIR: "/srv/cardlink" });
    const banner = startBanner(config, "http://localhost:3000", admin, demo);
    expect(banner).not.toContain(admin.token);
    expect(banner).not.toContain(demo.test);
    expect(banner).not.toContain(demo.live);
    expect(banner).toContain("admin token:  in /srv/cardlink/credentials.json (not printed: HOST 0.0.0.0 is not loopback)");
    expect(startBanner({ ...config, ADMIN_TOKEN: admin.token }, "http://localhost:3000", { ...admin, generated: false }, demo)).toContain(
      "admin token:  from ADMIN_TOKEN",
    );
  });
});
