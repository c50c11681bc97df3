// Sandboxes in a real headless Chromium: a publisher signs in, creates a sandbox frozen at an instant
// (its keys shown once), switches to it, advances its clock and sees the new time in the header (and
// the API's message for a move it refuses), makes a program there and sends a test purchase dated on
// the sandbox's clock, switches back to find the account's environment without that program, and
// deletes the sandbox after the confirmation. Screenshots of each page at 1280 and 390 px.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { usePipeline } from "../support/pipeline.ts";
import { ADMIN_TOKEN, type TestAccount } from "../support/harness.ts";
import { chromiumPath, screenshots as saveScreenshots, serveAndLaunch, unlabelledFields, watchedPages, type Served } from "../support/browser.ts";
import { ALL_ROLES } from "../../src/app/roles.ts";

const executablePath = chromiumPath();
/** A browser walk through many pages: generous, for a busy machine (tests wait on outcomes, not time). */
const WALK_MS = 180_000;

/** A screenshot of the page at both widths, and the check that every field on it has a label. */
async function screenshots(page: Page, name: string) {
  await saveScreenshots(page, name);
  expect(await unlabelledFields(page), name).toEqual([]);
}
const pipeline = usePipeline(ALL_ROLES);

describe.skipIf(!executablePath)("sandboxes in Chromium", () => {
  let served: Served;
  let account: TestAccount;
  const { requested, consoleErrors, newPage } = watchedPages(() => served);

  beforeAll(async () => {
    served = await serveAndLaunch(pipeline.h.services, ADMIN_TOKEN, executablePath!);
    account = await pipeline.h.createAccount({ tier: "premium", name: "Browser sandboxes" });
  });
  afterAll(async () => {
    await served?.close();
  });


  const flash = (page: Page) => page.locator(".flash").first();
  const banner = (page: Page) => page.locator(".env").textContent();

  /** Creates a frozen sandbox on the Sandboxes page and switches to it from the page that shows its keys. */
  async function createAndSwitch(page: Page) {
    await page.getByRole("link", { name: "Sandboxes" }).click();
    await expect(page.locator("#sandbox-limit").textContent()).resolves.toContain("0 of 10 sandboxes used");
    await page.getByLabel("Sandbox name").fill("browser-ci");
    await page.getByLabel("Its time starts at (UTC)").fill("2026-03-01T09:00:00");
    await page.getByLabel("Frozen: its time moves only when advanced").check();
    await page.getByLabel("Expires in").selectOption({ label: "7 days" });
    await page.getByRole("button", { name: "Create sandbox" }).click();
    await expect(page.locator("h1").textContent()).resolves.toBe("Sandbox created");
    const keys = await page.locator("code.secret").allTextContents();
    expect(keys).toEqual([expect.stringMatching(/^sk_test_/), expect.stringMatching(/^sk_live_/)]);
    await screenshots(page, "sandbox-created");
    await page.getByRole("button", { name: "Switch to browser-ci" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Now in sandbox browser-ci (TEST)");
    await expect(banner(page)).resolves.toContain("TEST environment — sandbox browser-ci of Browser sandboxes");
    await expect(page.locator("#sandbox-now").textContent()).resolves.toBe("2026-03-01T09:00:00.000Z");
  }

  /** Advances by days, sees the header's new time; a move to an earlier instant shows the API's message. */
  async function advanceClock(page: Page) {
    await page.getByLabel("Days", { exact: true }).fill("2");
    await page.getByRole("button", { name: "Advance sandbox time" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Sandbox time is now 2026-03-03T09:00:00.000Z.");
    await expect(page.locator("#sandbox-now").textContent()).resolves.toBe("2026-03-03T09:00:00.000Z");
    await page.getByLabel("Or to the instant (UTC)").fill("2026-03-01T00:00:00");
    await page.getByRole("button", { name: "Advance sandbox time" }).click();
    await expect(flash(page).textContent()).resolves.toContain("to: the clock never goes back");
    await expect(page.locator("#sandbox-now").textContent()).resolves.toBe("2026-03-03T09:00:00.000Z");
    expect(pipeline.h.services.clock.now().toISOString()).toBe("2026-01-05T12:00:00.000Z");
  }

  /** A program, brand, location and card made in the sandbox, and a test purchase dated on its clock. */
  async function purchaseInSandbox(page: Page) {
    await page.getByRole("link", { name: "Overview" }).click();
    await page.getByLabel("Program name").fill("Sandbox program");
    await page.getByRole("button", { name: "Create program" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Program created.");
    await page.getByRole("link", { name: "Offers" }).click();
    await page.getByRole("link", { name: "Create an offer" }).click();
    await page.getByLabel("Brand name").fill("Sandbox coffee");
    await page.getByRole("button", { name: "Add brand" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Brand added.");
    await page.getByRole("link", { name: "Locations" }).click();
    await page.getByLabel("Address").fill("2 Sandbox Lane");
    await page.getByLabel("Postcode").fill("SW1A 2AA");
    await page.getByLabel("City").fill("London");
    await page.getByRole("button", { name: "Add location" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Location added.");
    await page.getByRole("link", { name: "Transactions", exact: true }).click();
    await page.getByLabel("Card number").fill("4444000000004008");
    await page.getByLabel("The cardholder accepted the terms of use").check();
    await page.getByRole("button", { name: "Enrol card" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Card enrolled.");
    await page.getByLabel("Amount", { exact: true }).fill("20");
    await page.getByRole("button", { name: "Send purchase" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Test purchase sent");
    await expect.poll(async () => {
      await page.reload();
      return page.locator("#feed tbody tr").first().textContent();
    }, { timeout: 20_000 }).toContain("2026-03-03 09:00:00");
    await screenshots(page, "sandbox-transactions");
  }

  it("creates a sandbox, switches to it, advances its clock, keeps its program to itself and deletes it", async () => {
    const page = await newPage();
    await page.goto(`${served.url}/dashboard/sign-in`);
    await page.getByLabel("API key or admin token").fill(account.keys.test);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => banner(page)).toContain("TEST environment — Browser sandboxes");
    await expect(page.locator("#sandbox-now").count()).resolves.toBe(0);
    await createAndSwitch(page);
    await screenshots(page, "sandbox-overview");
    await advanceClock(page);
    await purchaseInSandbox(page);

    // Back in the account's own environment: the sandbox's program is not there.
    await page.getByLabel("Switch to", { exact: true }).selectOption({ label: "Browser sandboxes (the account's own)" });
    await page.getByRole("button", { name: "Switch environment" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Now in the account's own TEST environment.");
    await expect(banner(page)).resolves.toBe("TEST environment — Browser sandboxes (premium)");
    await expect(page.locator("h1").textContent()).resolves.toBe("Transactions");
    await expect(page.locator("main").textContent()).resolves.toContain("This environment has no program yet");
    expect(await page.locator("body").textContent()).not.toContain("Sandbox program");
    expect(await page.locator("#sandbox-now").count()).toBe(0);

    await page.getByRole("link", { name: "Sandboxes" }).click();
    await expect(page.locator("#sandbox-limit").textContent()).resolves.toContain("1 of 10 sandboxes used");
    await screenshots(page, "sandboxes");
    await page.getByRole("link", { name: "Delete browser-ci" }).click();
    await expect(page.locator("h1").textContent()).resolves.toBe("Delete sandbox browser-ci?");
    await screenshots(page, "sandbox-delete");
    await page.getByRole("button", { name: "Delete sandbox browser-ci" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Sandbox deleted, with everything in it.");
    await expect(page.locator("#sandbox-limit").textContent()).resolves.toContain("0 of 10 sandboxes used");
    expect(await page.locator("#env-switch").count()).toBe(0);
  }, WALK_MS);

  it("no page asked for anything outside the service, and none logged an error", () => {
    expect(consoleErrors).toEqual([]);
    expect(requested.length).toBeGreaterThan(20);
    expect(requested.filter((u) => !u.startsWith(served.url) && !u.startsWith("data:") && !u.startsWith("blob:"))).toEqual([]);
  });
});
