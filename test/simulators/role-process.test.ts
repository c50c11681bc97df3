// `simulator --scheme visa` as a process of the real CLI with no DATABASE_URL at all, on the real Kafka:
// its own store is PGlite in DATA_DIR/simulators/visa. The service (API, qualifier, lifecycle workers in
// this process, with a database the simulator never sees) reaches it only over the bus: the network
// answers a test location's onboarding and test purchases, applies faults set through /admin, and after a
// restart still holds its faults and the purchases it made; with a new store it reads the settings again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRoles, type RunningRoles } from "../../src/app/roles.ts";
import { CARD_NUMBERS } from "../support/fixtures.ts";
import { createHarness, expectStatus, type Client, type Harness } from "../support/harness.ts";
import { haveInfra } from "../support/infra.ts";
import { outputMatches, startRole, stopRole, type RoleProcess } from "../support/role-process.ts";
import { waitFor } from "./helpers.ts";

type Transaction = { id: string; cleared: boolean; identifiers: Record<string, unknown> };

describe.skipIf(!haveInfra("kafkaBrokers"))("a simulator role with a store of its own", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cardlink-simulator-"));
  let h: Harness;
  let roles: RunningRoles;
  let simulator: RoleProcess;
  let client: Client;
  let cardId: string;
  let locationId: string;

  const env = () => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS,
    // The harness's topics and groups; its values are single-object encoded, so no registry here either.
    KAFKA_NAMESPACE: h.kafkaNamespace,
    DATA_DIR: dataDir,
    CLOCK_SPEED: "0",
    CLOCK_START: h.config.CLOCK_START,
    LOG_LEVEL: "info",
  });

  const start = async () => {
    simulator = startRole("simulator-visa", ["simulator", "--scheme", "visa"], env());
    await outputMatches(simulator, /"msg":"simulator running"/);
  };

  /** Resolves once the simulator process has applied `n` settings in all (its log says each). */
  const applied = (n: number) => outputMatches(simulator, new RegExp(`("msg":"setting applied"[^]*){${n}}`));

  const purchase = (amount: number) => client.post("/v1/transactions/test", { cardId, locationId, amount });

  beforeAll(async () => {
    h = await createHarness({ bus: "kafka" });
    roles = await startRoles(h.services, ["qualifier", "workers"]);
    await start();
    client = (await h.createAccount()).as("test");
    const program = await expectStatus<{ id: string }>(await client.post("/v1/programs", { name: "Own store" }), 201);
    const brand = await expectStatus<{ id: string }>(await client.post("/v1/brands", { name: "Corner Café" }), 201);
    const location = await expectStatus<{ id: string }>(
      await client.post(`/v1/programs/${program.id}/locations`, { address: "1 High Street", brandId: brand.id, city: "London", countryCode: "GBR", postcode: "N1 9GU" }),
      201,
    );
    const card = await expectStatus<{ id: string }>(
      await client.post(`/v1/programs/${program.id}/cards`, { number: CARD_NUMBERS.test, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true }),
      201,
    );
    locationId = location.id;
    cardId = card.id;
  }, 120_000);

  afterAll(async () => {
    if (simulator) await stopRole(simulator);
    await roles?.stop();
    await h?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("keeps its state in PGlite under DATA_DIR/simulators/visa, never opening the service's database", () => {
    expect(simulator.output.join("")).toContain(`"store":"PGlite in ${join(dataDir, "simulators", "visa")}"`);
  });

  it("refuses a second process of the scheme on the same embedded store, naming the holder", { timeout: 60_000 }, async () => {
    const second = startRole("simulator-visa-2", ["simulator", "--scheme", "visa"], env());
    const code = await new Promise<number | null>((resolve) => second.child.once("exit", resolve));
    expect(code).toBe(1);
    const dir = join(dataDir, "simulators", "visa");
    expect(second.output.join("")).toContain(`DATA_DIR ${dir} is in use by process`);
    expect(second.output.join("")).toMatch(/by process \d+ \(cardlink simulator --scheme visa, started /);
    expect(second.output.join("")).toContain("or SIMULATOR_DATABASE_URL to share one database");
  });

  it("answers the test location's onboarding with its Visa MIDs", { timeout: 60_000 }, async () => {
    type Location = { status: { visa: { status: string; mids: { vmid?: string }[] } } };
    let location: Location | undefined;
    await waitFor(async () => {
      location = await expectStatus<Location>(await client.get(`/v1/locations/${locationId}`), 200);
      return location.status.visa.mids.length > 0;
    }, 30_000);
    expect(location!.status.visa).toMatchObject({ status: "Active", mids: [{ vmid: expect.stringMatching(/^\d{6,8}$/) }] });
  });

  it("takes test purchases and faults over the bus, and loses neither in a restart", { timeout: 120_000 }, async () => {
    const before = await expectStatus<Transaction>(await purchase(12.5), 201);
    expect(before).toMatchObject({ cleared: false, identifiers: { visaAuthCode: expect.any(String) } });

    // Every message the network publishes is dropped: the purchase is sent, and never recorded.
    await expectStatus(await h.admin("PATCH", "/admin/simulators/visa/faults", { dropRate: 1 }), 200);
    await applied(1);
    expect((await expectStatus<{ status: string }>(await purchase(20), 202)).status).toBe("sent");

    await stopRole(simulator);
    await start();
    // Still dropping after the restart: the fault came from its own store (the setting's offset was committed).
    const dropped = await expectStatus<{ id: string }>(await purchase(21), 202);
    expect((await client.get(`/v1/transactions/${dropped.id}`)).status).toBe(404);

    await expectStatus(await h.admin("DELETE", "/admin/simulators/visa/faults"), 204);
    await applied(1);
    // The purchase made before the restart is still the network's to clear.
    const cleared = await expectStatus<Transaction>(await client.post(`/v1/transactions/${before.id}/clear`), 200);
    expect(cleared).toMatchObject({ id: before.id, cleared: true });
    expect(await expectStatus<{ dropRate: number }>(await h.admin("GET", "/admin/simulators/visa/faults"), 200)).toMatchObject({ dropRate: 0 });
  });

  it("catches up on the settings from the topic when its store is new", { timeout: 120_000 }, async () => {
    await expectStatus(await h.admin("PATCH", "/admin/simulators/visa/faults", { dropRate: 1 }), 200);
    await applied(2);
    await stopRole(simulator);
    rmSync(join(dataDir, "simulators", "visa"), { recursive: true });
    await start();
    // The three faults settings so far, read again from the start of simulator.settings: the last one holds.
    await applied(3);
    expect((await expectStatus<{ status: string }>(await purchase(22), 202)).status).toBe("sent");
  });
});
