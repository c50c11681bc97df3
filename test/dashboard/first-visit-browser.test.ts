// A first visit in a real headless Chromium, over an account made through the API: the test purchase
// form starts with a card and location a live offer rewards, so the first purchase is qualified; a
// transaction's and an event's page have the program switcher and a way back to their list; status
// badges say their status in words; Offers lists the program's offers (or the whole account's); MID
// insights under a test key says how to reach them and offers no export; no page asks for anything the
// service does not have (a favicon included); /docs starts with its title, not a blank band.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { usePipeline } from "../support/pipeline.ts";
import { ADMIN_TOKEN, expectStatus, type Client } from "../support/harness.ts";
import { ALL_ROLES } from "../../src/app/roles.ts";
import { chromiumPath, screenshots as saveScreenshots, serveAndLaunch, unlabelledFields, watchedPages, type Served } from "../support/browser.ts";

const executablePath = chromiumPath();
/** A browser walk through many pages: generous, for a busy machine (tests wait on outcomes, not time). */
const WALK_MS = 120_000;
const pipeline = usePipeline(ALL_ROLES);

async function screenshots(page: Page, name: string) {
  await saveScreenshots(page, name);
  if (name !== "docs") expect(await unlabelledFields(page), name).toEqual([]);
}

const made = async (client: Client, path: string, body: unknown) => (await expectStatus<{ id: string }>(await client.post(path, body), 201)).id;

describe.skipIf(!executablePath)("a first visit to the dashboard in Chromium", () => {
  let served: Served;
  let key: string;
  const ids: Record<"coffee" | "bakery" | "visa" | "linked" | "unlinked", string> = { coffee: "", bakery: "", visa: "", linked: "", unlinked: "" };
  const { requested, consoleErrors, newPage } = watchedPages(() => served);
  /** Every answer a page got that was 404: none is expected (the favicon was the one a page asked for in vain). */
  const missing: string[] = [];

  beforeAll(async () => {
    served = await serveAndLaunch(pipeline.h.services, ADMIN_TOKEN, executablePath!);
    const account = await pipeline.h.createAccount({ name: "First visit" });
    key = account.keys.test;
    const api = account.as("test");
    // Two programs of one brand. Coffee's newest location and newest card (first in the form's lists)
    // are no good for its visa-only offer: the form must pick the older ones.
    const brandId = await made(api, "/v1/brands", { name: "Coffee House" });
    ids.bakery = await made(api, "/v1/programs", { name: "Bakery program" });
    // The harness's clock is frozen: a minute on, Coffee is the newest program, the one pages open on.
    await pipeline.h.services.clock.advance(60_000);
    ids.coffee = await made(api, "/v1/programs", { name: "Coffee program" });
    const place = (address: string) => ({ address, brandId, city: "London", countryCode: "GBR", postcode: "SW1A 1AA" });
    ids.linked = await made(api, `/v1/programs/${ids.coffee}/locations`, place("1 High Street"));
    ids.unlinked = await made(api, `/v1/programs/${ids.coffee}/locations`, place("9 Side Street"));
    const bakeryLocation = await made(api, `/v1/programs/${ids.bakery}/locations`, place("2 Bread Lane"));
    const card = (number: string) => made(api, `/v1/programs/${ids.coffee}/cards`, { number, expMonth: 12, expYear: 2030, countryCode: "GBR", termsOfUse: true });
    ids.visa = await card("4444000000004008");
    await card("5555555555554444");
    const offer = (name: string, over: Record<string, unknown> = {}) =>
      made(api, "/v1/offers", { brandId, countryCode: "GBR", name, publisherId: account.id, startDate: "2026-01-01T00:00:00", type: { name: "amount", value: 5 }, ...over });
    const coffeeOffer = await offer("5 off coffee", { schemes: ["visa"] });
    await expectStatus(await api.post(`/v1/offers/${coffeeOffer}/locations/${ids.linked}`), 201);
    const bakeryOffer = await offer("Bakery treat");
    await expectStatus(await api.post(`/v1/offers/${bakeryOffer}/locations/${bakeryLocation}`), 201);
    await offer("Not linked yet");
  });
  afterAll(async () => {
    await served?.close();
  });

  async function signedIn(): Promise<Page> {
    const page = await newPage();
    page.on("response", (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
    await page.goto(`${served.url}/dashboard/sign-in`);
    await page.getByLabel("API key or admin token").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Overview");
    return page;
  }

  /** Every badge on the page says its status in words: no raw value (`no_hooks`, `live`). */
  const badges = async (page: Page) => {
    const texts = await page.locator(".badge").allTextContents();
    expect(texts.filter((t) => !/^[A-Z][a-z]*( [a-z]+)*$/.test(t))).toEqual([]);
    return texts;
  };
  const flash = (page: Page) => page.locator(".flash").first().textContent();
  const switchProgram = async (page: Page, name: string) => {
    await page.getByLabel("Program", { exact: true }).selectOption({ label: name });
    await page.getByRole("button", { name: "Switch", exact: true }).click();
  };

  it("the first test purchase qualifies; its transaction and event pages lead back and switch programs; badges in words", async () => {
    const page = await signedIn();
    await page.getByRole("link", { name: "Transactions", exact: true }).click();
    await expect(page.getByLabel("Program", { exact: true }).inputValue()).resolves.toBe(ids.coffee);
    // Preselected: the visa card (not the newest, a Mastercard) at the linked location (not the newest), with an amount the offer rewards.
    await expect(page.locator("#tp-card").inputValue()).resolves.toBe(ids.visa);
    await expect(page.locator("#tp-location").inputValue()).resolves.toBe(ids.linked);
    await expect(page.locator("#tp-amount").inputValue()).resolves.toBe("20");
    await expect(page.locator("#tp-suggestion").textContent()).resolves.toMatch(/live offer\s*5 off coffee\s*rewards a purchase made now, for 20 GBP/);
    await screenshots(page, "first-visit-test-purchase");
    await page.getByRole("button", { name: "Send purchase" }).click();
    await expect(flash(page)).resolves.toContain("Test purchase sent");
    const row = page.locator("#feed tbody tr").first();
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain("Qualified");
    expect(await row.textContent()).toContain("cashback 5.00 GBP");

    // The transaction's page: its program chosen in the switcher, the way back to the program's transactions.
    await row.getByRole("link").click();
    await expect(page.locator("h1").textContent()).resolves.toMatch(/^Transaction /);
    await expect(page.getByLabel("Program", { exact: true }).inputValue()).resolves.toBe(ids.coffee);
    await expect(page.getByRole("navigation", { name: "Main" }).locator("[aria-current]").textContent()).resolves.toBe("Transactions");
    await page.getByRole("link", { name: "← Transactions of Coffee program" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Transactions");
    expect(new URL(page.url()).searchParams.get("program")).toBe(ids.coffee);
    await row.getByRole("link").click();
    // Another program from a transaction's page opens that program's transactions.
    await switchProgram(page, "Bakery program");
    await expect.poll(() => page.locator("h1").textContent()).toBe("Transactions");
    expect(new URL(page.url()).searchParams.get("program")).toBe(ids.bakery);
    await expect(page.locator("section", { has: page.locator("#test-purchase") }).textContent()).resolves.toContain("Enrol a card (below)");

    // Coffee has no hooks: its purchase's event is "No hooks", as its badge and the status filter say.
    await switchProgram(page, "Coffee program");
    await page.getByRole("link", { name: "Events", exact: true }).click();
    await expect.poll(() => page.locator("#events tbody tr").count()).toBeGreaterThan(0);
    expect(await badges(page)).toContain("No hooks");
    expect(await page.getByLabel("Status", { exact: true }).locator("option").allTextContents()).toEqual(["Any status", "Delivered", "Failed", "Pending", "No hooks"]);
    await page.getByRole("link", { name: /^Open event transaction\.auth [0-9a-f-]+$/ }).click();
    await expect(page.locator("h1").textContent()).resolves.toBe("Event: transaction.auth");
    expect(await badges(page)).toEqual(["No hooks"]);
    await expect(page.getByLabel("Program", { exact: true }).inputValue()).resolves.toBe(ids.coffee);
    await screenshots(page, "first-visit-event");
    await page.getByRole("link", { name: "← Events of Coffee program" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Events");
    expect(new URL(page.url()).searchParams.get("program")).toBe(ids.coffee);
  }, WALK_MS);

  it("Offers lists the program's offers or the whole account's; MID insights under a test key says how to reach them; /docs starts with its title", async () => {
    const page = await signedIn();
    const names = () => page.locator("table tbody tr td:first-child").allTextContents();
    await page.getByRole("link", { name: "Offers", exact: true }).click();
    await expect(page.locator("caption").textContent()).resolves.toBe("Live offers of Coffee program");
    expect(await names()).toEqual(["5 off coffee"]);
    expect(await badges(page)).toEqual(["Live"]);
    await expect(page.locator("#offers-scope").textContent()).resolves.toContain("linked to at least one of its locations");
    await screenshots(page, "first-visit-offers");
    await switchProgram(page, "Bakery program");
    expect(await names()).toEqual(["Bakery treat"]);
    await page.getByLabel("Offers of", { exact: true }).selectOption("account");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.locator("caption").textContent()).resolves.toBe("Live offers of the whole account");
    expect((await names()).sort()).toEqual(["5 off coffee", "Bakery treat"]);
    // The whole account's requests hold the offer linked nowhere; a program's do not.
    await page.getByRole("navigation", { name: "Offer groups" }).getByRole("link", { name: "Requests", exact: true }).click();
    expect(await names()).toEqual(["Not linked yet"]);
    expect(await badges(page)).toEqual(["Requests"]);
    await page.getByLabel("Offers of", { exact: true }).selectOption("program");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.locator("table tbody tr").count()).resolves.toBe(0);

    await page.getByRole("link", { name: "MID insights" }).click();
    const unavailable = page.locator("#mid-insights-unavailable");
    await expect(unavailable.textContent()).resolves.toContain("sign in with the live key");
    expect(await unavailable.textContent()).toContain("MID insights need the live secret key");
    expect(await page.getByRole("button", { name: "Export the matching insights" }).count()).toBe(0);
    expect(await page.locator("form[action='/dashboard/mid-insights/export']").count()).toBe(0);
    await screenshots(page, "first-visit-mid-insights-test-key");

    // /docs: the links to home and the dashboard, then the title at once, with no blank band between.
    await page.goto(`${served.url}/docs`);
    const title = page.locator(".swagger-ui .info .title");
    await expect.poll(() => title.count(), { timeout: 20_000 }).toBe(1);
    const top = (await title.boundingBox())!.y;
    const links = (await page.getByRole("navigation", { name: "Cardlink" }).boundingBox())!;
    expect(links.y).toBeLessThan(30);
    expect(top - (links.y + links.height)).toBeLessThan(30);
    await screenshots(page, "docs");
  }, WALK_MS);

  it("no page asked for anything missing (a favicon included) or outside the service, and none logged an error", async () => {
    expect(missing).toEqual([]);
    expect(requested.filter((u) => u.endsWith("/favicon.svg")).length).toBeGreaterThan(0);
    // A browser asks for /favicon.ico on what names no icon (the OpenAPI document opened as a page).
    const ico = await fetch(`${served.url}/favicon.ico`);
    expect([ico.status, ico.headers.get("content-type")]).toEqual([200, "image/svg+xml"]);
    expect(await ico.text()).toContain("<svg");
    expect(requested.filter((u) => !u.startsWith(served.url))).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
