// The dashboard in a real headless Chromium: a publisher signs in with a test key, builds a program
// through the forms, creates and links an offer, sends a test purchase, watches it arrive qualified in
// the live feed and opens its delivered webhook; the API's validation message; the operator's clock;
// a MID-insights export and its e-mail on the Mail page; every page loads nothing from outside; screenshots
// of each page. The transaction page shows the offers considered and the network's own message. (A test key
// on MID insights and /docs: first-visit-browser.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { usePipeline } from "../support/pipeline.ts";
import { ADMIN_TOKEN, type TestAccount } from "../support/harness.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { chromiumPath, focused, screenshots as saveScreenshots, serveAndLaunch, unlabelledFields, watchedPages, type Served } from "../support/browser.ts";
import { ALL_ROLES } from "../../src/app/roles.ts";

const executablePath = chromiumPath();
/** A browser walk through many pages: generous, for a busy machine (tests wait on outcomes, not time). */
const WALK_MS = 180_000;

/** A screenshot of the page at both widths, and the check that every field on it has a label. */
async function screenshots(page: Page, name: string) {
  await saveScreenshots(page, name);
  if (name !== "docs") expect(await unlabelledFields(page), name).toEqual([]);
}
const pipeline = usePipeline(ALL_ROLES);

describe.skipIf(!executablePath)("dashboard in Chromium", () => {
  let served: Served;
  let receiver: Receiver;
  let account: TestAccount;
  /** Every URL any page asked for, to prove that nothing comes from outside. */
  /** Errors the pages logged, Content-Security-Policy refusals among them. */
  const { requested, consoleErrors, newPage } = watchedPages(() => served);

  beforeAll(async () => {
    served = await serveAndLaunch(pipeline.h.services, ADMIN_TOKEN, executablePath!);
    receiver = await startReceiver();
    account = await pipeline.h.createAccount({ tier: "premium", name: "Browser publisher" });
  });
  afterAll(async () => {
    await served?.close();
    await receiver?.close();
  });


  async function signIn(page: Page, secret: string) {
    await page.goto(`${served.url}/dashboard/sign-in`);
    await page.getByLabel("API key or admin token").fill(secret);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  const flash = (page: Page) => page.locator(".flash").first();

  it("a publisher follows a test purchase from the offer to its delivered webhook", async () => {
    const page = await newPage();
    await page.goto(`${served.url}/`);
    await screenshots(page, "home");
    await page.getByRole("link", { name: "Dashboard" }).click();
    await expect.poll(() => page.url()).toContain("/dashboard/sign-in");
    await screenshots(page, "sign-in");
    await signIn(page, account.keys.test);
    await expect.poll(() => page.locator(".env").textContent()).toContain("TEST environment");

    // A program, a brand, a location, a card and a hook, all through the forms.
    await page.getByLabel("Program name").fill("Coffee program");
    await page.getByRole("button", { name: "Create program" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Program created.");
    await page.getByRole("link", { name: "Offers", exact: true }).click();
    await page.getByRole("link", { name: "Create an offer" }).click();
    await page.getByLabel("Brand name").fill("Coffee House");
    await page.getByRole("button", { name: "Add brand" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Brand added.");

    await page.getByRole("link", { name: "Locations" }).click();
    await page.getByLabel("Address").fill("1 High Street");
    await page.getByLabel("Postcode").fill("SW1A 1AA");
    await page.getByLabel("City").fill("London");
    await page.getByRole("button", { name: "Add location" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Location added.");
    await expect.poll(() => page.locator("table .badge-active").count()).toBe(3);
    await screenshots(page, "locations");

    await page.getByRole("link", { name: "Transactions", exact: true }).click();
    await page.getByLabel("Card number").fill("4444000000004008");
    await page.getByLabel("The cardholder accepted the terms of use").check();
    await page.getByRole("button", { name: "Enrol card" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Card enrolled.");

    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("Event").selectOption("transaction.auth");
    await page.getByLabel("URL").fill(receiver.url);
    await page.getByRole("button", { name: "Add hook" }).click();
    await expect(page.locator("code.secret").textContent()).resolves.toMatch(/^whsec_/);

    // The offer form: the API's own validation message first, then the offer.
    await page.goto(`${served.url}/dashboard/offers/new`);
    await page.getByLabel("Name", { exact: true }).fill("5 off coffee");
    await page.getByLabel("Country (ISO 3166-1 alpha-3)").fill("XYZ");
    await page.getByLabel("Start (local to the location)").fill("2026-01-01T00:00:00");
    await page.getByLabel("Reward value").fill("5");
    await page.getByRole("button", { name: "Create offer" }).click();
    const refused = await flash(page).textContent();
    expect(refused).toContain("countryCode: must be an ISO 3166-1 alpha-3 code");
    await screenshots(page, "offer-create-error");
    await expect(page.getByLabel("Name", { exact: true }).inputValue()).resolves.toBe("5 off coffee");
    await page.getByLabel("Country (ISO 3166-1 alpha-3)").fill("GBR");
    await page.getByRole("button", { name: "Create offer" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Offer 5 off coffee created");
    await page.getByRole("button", { name: "Link location" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Location linked.");
    await expect(page.locator("dl.facts .badge").first().textContent()).resolves.toBe("Live");
    await page.getByLabel("New end (local)").fill("2027-06-01T00:00:00");
    await page.getByRole("button", { name: "Extend" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Offer extended.");
    await expect(page.locator("dl.facts").textContent()).resolves.toContain("2027-06-01 00:00:00");
    await screenshots(page, "offer");

    // The live feed is open in one tab; the purchase is sent from another.
    const feed = await newPage();
    await signIn(feed, account.keys.test);
    await feed.getByRole("link", { name: "Transactions", exact: true }).click();
    await expect.poll(() => feed.locator("#feed tbody tr").count()).toBe(0);
    await page.getByRole("link", { name: "Transactions", exact: true }).click();
    await page.getByLabel("Amount", { exact: true }).fill("20");
    await page.getByRole("button", { name: "Send purchase" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Test purchase sent");

    const row = feed.locator("#feed tbody tr").first();
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain("Qualified");
    expect(await row.textContent()).toContain("cashback 5.00 GBP");
    expect(await row.textContent()).toContain("auth");
    await screenshots(feed, "transactions");

    // Its detail, with the webhook delivery the receiver got.
    await receiver.waitFor(1);
    await row.getByRole("link").click();
    await expect.poll(async () => {
      await feed.reload();
      return feed.locator("[data-delivery]").first().textContent();
    }, { timeout: 20_000 }).toContain("Succeeded");
    const delivery = await feed.locator("[data-delivery]").first().textContent();
    expect(delivery).toContain("transaction.auth");
    expect(delivery).toMatch(/#1: 200, \d+ ms/);
    // Every offer the purchase was weighed against (the one linked, which won), and the Visa message it was made from.
    const considered = feed.locator("#offers-considered tbody tr");
    expect(await considered.count()).toBe(1);
    expect(await considered.first().textContent()).toMatch(/5 off coffee\s*Won\s*cashback 5\.00 GBP/);
    const native = feed.locator("#network-message .native-message").first();
    expect(await native.locator("h3").textContent()).toMatch(/visa AUTH\s*\(auth\)/);
    const sent = await native.locator("pre").textContent();
    expect(sent).toContain('"messageType": "AUTH"');
    expect(sent).toContain('"vmid":');
    expect(sent).toContain('"amount": 20');
    await screenshots(feed, "transaction");
    await feed.getByRole("button", { name: "Redeliver" }).click();
    await expect(flash(feed).textContent()).resolves.toContain("Queued again for 1 hook(s).");
    await receiver.waitFor(2);

    // A receiver that fails: the delivery shows the failed attempt and its next retry on the service clock.
    receiver.respondWith(500, { body: "database is down" });
    await page.getByLabel("Amount", { exact: true }).fill("30");
    await page.getByRole("button", { name: "Send purchase" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Test purchase sent");
    await receiver.waitFor(3);
    await feed.getByRole("link", { name: "Webhooks", exact: true }).click();
    await feed.getByRole("link", { name: "transaction.auth" }).click();
    // Frozen service time: every delivery has the same creation time, so find the failing one by its attempt.
    const failing = feed.locator("[data-delivery]", { hasText: "#1: 500" });
    await expect.poll(async () => {
      await feed.reload();
      return failing.count();
    }, { timeout: 20_000 }).toBe(1);
    expect(await failing.textContent()).toMatch(/#1: 500, \d+ ms/);
    expect(await failing.textContent()).toContain("Pending");
    expect(await failing.locator("td").nth(3).textContent()).toBe("2026-01-05 12:00:05");
    receiver.respondWith(200);
    await screenshots(feed, "webhook-deliveries");
    await feed.getByRole("button", { name: "Disable" }).click();
    await expect(flash(feed).textContent()).resolves.toContain("Hook disabled");
    await expect(feed.locator("dl.facts .badge").textContent()).resolves.toBe("Disabled");
    await feed.getByRole("button", { name: "Re-enable" }).click();
    await expect(flash(feed).textContent()).resolves.toContain("Hook re-enabled");
    await expect(feed.locator("dl.facts .badge").textContent()).resolves.toBe("Active");
    await feed.getByRole("link", { name: "Webhooks", exact: true }).click();
    await screenshots(feed, "webhooks");

    await page.getByRole("link", { name: "Overview" }).click();
    await expect.poll(() => page.locator("#chart-transactions").getAttribute("height")).not.toBeNull();
    await expect.poll(async () => {
      await page.reload();
      return page.locator(".stats").textContent();
    }).toMatch(/2 transactions.*[34] webhook attempts, 1 failed/);
    await page.getByText("The figures as a table").click();
    const minute = page.locator("details table tbody tr").first();
    expect(await minute.locator("td").allTextContents()).toEqual(["12:00", "2", "100", expect.stringMatching(/^[34]$/), "1", expect.stringMatching(/^\d+$/)]);
    await screenshots(page, "overview");
    for (const group of ["Requests", "Live", "Expiring soon"]) {
      await page.getByRole("link", { name: "Offers", exact: true }).click();
      // The offer groups' own links: the main navigation has a Requests link too (the request log).
      await page.getByRole("navigation", { name: "Offer groups" }).getByRole("link", { name: group, exact: true }).click();
      await screenshots(page, `offers-${group.toLowerCase().replace(/ /g, "-")}`);
    }
    await page.getByRole("link", { name: "Live", exact: true }).click();
    expect(await page.locator("table").textContent()).toContain("5 off coffee");

    // Missing transaction requests: the API's amount rule, then a request the test network answers at once.
    await page.getByRole("link", { name: "Missing transactions" }).click();
    await page.getByLabel("Transaction date").fill("2026-01-03");
    await page.getByLabel("Amount").fill("-1");
    await page.getByRole("button", { name: "Create request" }).click();
    await expect(flash(page).textContent()).resolves.toContain("amount: must be 0 or greater");
    await page.getByLabel("Transaction date").fill("2026-01-03");
    await page.getByLabel("Amount").fill("12.5");
    await page.getByRole("button", { name: "Create request" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Request created: successful.");
    await expect(page.locator("[data-request]").first().textContent()).resolves.toContain("Successful");
    await screenshots(page, "missing-transaction-requests");

    // The marketplace group: a content provider's offer, added to the program from the dashboard.
    const supplied = await pipeline.h.admin("POST", "/admin/marketplace-offers", {
      name: "Rewards Co coffee",
      brandName: "Coffee House",
      countryCode: "GBR",
      startDate: "2026-01-01T00:00:00",
      type: { name: "amount", value: 3 },
      supplier: { id: "cp_rewards", type: "affiliate", name: "Rewards Co" },
    });
    expect(supplied.status).toBe(201);
    await page.getByRole("link", { name: "Offers", exact: true }).click();
    await page.getByRole("link", { name: "Marketplace", exact: true }).click();
    await screenshots(page, "offers-marketplace");
    await page.getByRole("button", { name: "Add to Coffee program" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Added to the program");
    await expect(page.locator("h1").textContent()).resolves.toBe("Offer: Rewards Co coffee");
  }, WALK_MS);

  it("a publisher finds the failed event, reads its attempts and resends it; the purchase names its offer; an empty overview says what to do", async () => {
    // After the walk above: the 30.00 purchase's transaction.auth failed once (500) and waits for its retry.
    const page = await newPage();
    await signIn(page, account.keys.test);
    await page.getByRole("link", { name: "Events", exact: true }).click();
    await expect.poll(() => page.locator("#events tbody tr").count()).toBeGreaterThan(2);
    await page.getByLabel("Status", { exact: true }).selectOption("pending");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => page.locator("#events tbody tr").count()).toBe(1);
    expect(await page.locator("#events tbody tr").textContent()).toContain("transaction.auth");
    await screenshots(page, "events");
    await page.locator("#events tbody tr").getByRole("link", { name: /^Open event/ }).click();
    await expect(page.locator("h1").textContent()).resolves.toBe("Event: transaction.auth");
    await expect(page.locator("#payload").textContent()).resolves.toContain('"event": "transaction.auth"');
    const attempt = page.locator("details.attempt").first();
    await expect(attempt.locator("summary").textContent()).resolves.toMatch(/Attempt 1: answered 500 in \d+ ms/);
    await expect(attempt.locator(".request-headers").textContent()).resolves.toMatch(/webhook-signature: v1,/);
    await expect(attempt.locator(".response-body").textContent()).resolves.toBe("database is down");
    await screenshots(page, "event");
    const before = receiver.received.length;
    await page.getByRole("button", { name: "Resend" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Queued again for 1 hook(s).");
    await receiver.waitFor(before + 1);
    await expect.poll(async () => {
      await page.reload();
      return page.locator("section.delivery .badge-active").count();
    }, { timeout: 20_000 }).toBe(1);
    // The first delivery still waits for its retry; the resent one answered 200.
    await expect(page.locator("section.delivery", { has: page.locator(".badge-active") }).textContent()).resolves.toContain("answered 200");

    // The purchase behind it: its winning offer by name, linked, and the way back to its events.
    await page.locator("dl.facts").getByRole("link").click();
    await expect(page.locator("#winning-offer").textContent()).resolves.toContain("5 off coffee");
    await page.getByRole("link", { name: "This transaction's events" }).click();
    await expect.poll(() => page.locator("#events tbody tr").count()).toBe(2);
    await page.goBack();
    await page.locator("#winning-offer").getByRole("link", { name: "5 off coffee" }).click();
    await expect(page.locator("h1").textContent()).resolves.toBe("Offer: 5 off coffee");

    // An overview window with nothing in it says so, and leads to the latest transaction's hour.
    await page.getByRole("link", { name: "Overview" }).click();
    await page.getByLabel("From (UTC)").fill("2025-06-01T09:00");
    await page.getByLabel("To (UTC)").fill("2025-06-01T10:00");
    await page.getByRole("button", { name: "Show" }).click();
    await expect(page.locator("#empty-window").textContent()).resolves.toContain("latest transaction is at 2026-01-05 12:00");
    await screenshots(page, "overview-empty");
    await page.getByRole("link", { name: "Show the hour around the latest transaction" }).click();
    await expect(page.locator(".stats").textContent()).resolves.toMatch(/2 transactions/);
    expect(await page.locator("#empty-window").count()).toBe(0);
    await page.getByRole("link", { name: "Last 7 days" }).click();
    await expect(page.locator(".stats").textContent()).resolves.toMatch(/2 transactions/);
    await expect(page.locator("figcaption").first().textContent()).resolves.toContain("per hour");
  }, WALK_MS);

  it("is usable with the keyboard alone: sign in, skip link, navigation", async () => {
    const page = await newPage();
    await page.goto(`${served.url}/dashboard/sign-in`);
    // The key field has the focus when the page opens (autofocus), so typing goes straight into it.
    await expect.poll(() => page.evaluate("document.activeElement && document.activeElement.id")).toBe("secret");
    await page.keyboard.type(account.keys.test);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("h1").textContent()).toBe("Overview");
    await page.keyboard.press("Tab");
    await expect.poll(() => focused(page)).toBe("Skip to content");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Overview");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Transactions");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("h1").textContent()).toBe("Transactions");
  }, WALK_MS);

  it("the operator advances the service clock", async () => {
    const page = await newPage();
    await signIn(page, ADMIN_TOKEN);
    await expect.poll(() => page.locator(".env").textContent()).toContain("Operator");
    const before = await page.locator("#clock-now").textContent();
    await page.getByRole("button", { name: "Advance 1 day" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Service time is now");
    const after = await page.locator("#clock-now").textContent();
    expect(Date.parse(after!) - Date.parse(before!)).toBe(24 * 60 * 60 * 1000);
    await page.locator("#adv-hours").fill("-1");
    await page.getByRole("button", { name: "Advance by this much" }).click();
    await expect(flash(page).textContent()).resolves.toContain("hours: must be 0 or more");
    await screenshots(page, "operator");
  }, WALK_MS);

  it("a live session exports MID insights and offboards a MID", async () => {
    const live = account.as("live");
    const program = (await (await live.post("/v1/programs", { name: "Live program" })).json()) as { id: string };
    expect((await pipeline.h.admin("POST", `/admin/programs/${program.id}/mid-insights/seed`, { count: 30, seed: 3 })).status).toBe(201);
    const page = await newPage();
    await signIn(page, account.keys.live);
    await expect.poll(() => page.locator(".env").textContent()).toContain("LIVE environment");
    await page.getByRole("link", { name: "MID insights" }).click();
    await expect.poll(() => page.locator("caption").first().textContent()).toContain("30 matching");
    await page.getByText("Filters and sort").click();
    await page.getByLabel("Per page").fill("10");
    await page.getByLabel("Sort by").selectOption("scheme");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => page.locator("table tbody tr").count()).toBe(10);
    await screenshots(page, "mid-insights");
    await page.getByRole("link", { name: "Next page" }).click();
    await expect.poll(() => page.locator("table tbody tr").count()).toBe(10);

    await page.getByLabel("Format").selectOption("json");
    await page.getByLabel("Recipients").fill("a@example.com, b@example.com");
    await page.getByRole("button", { name: "Export the matching insights" }).click();
    await expect(flash(page).textContent()).resolves.toContain("Export created.");
    await expect(page.locator(".flash-ok").nth(1).textContent()).resolves.toContain("Export of 30 insights (json");
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Download the file" }).click();
    const file = await download;
    const { readFile } = await import("node:fs/promises");
    const exported = JSON.parse(await readFile((await file.path())!, "utf8")) as unknown[];
    expect(exported).toHaveLength(30);

    // Each recipient's message, kept by the server (no SMTP_URL), opens on the Mail page with its attachment.
    await page.getByRole("link", { name: "Mail", exact: true }).click();
    await expect.poll(async () => (await page.reload(), page.locator("#mail .badge-active").count())).toBe(2);
    await screenshots(page, "mail");
    await page.locator("#mail tr", { hasText: "a@example.com" }).getByRole("link", { name: "Open" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("MID insights export: 30 insights of Live program (JSON)");
    const attached = page.waitForEvent("download");
    await page.locator("#attachments a").click();
    expect(JSON.parse(await readFile((await (await attached).path())!, "utf8"))).toEqual(exported);
    await screenshots(page, "mail-message");
    await page.getByRole("link", { name: "MID insights", exact: true }).click();

    await page.getByLabel("Recipients").fill("1@x.io 2@x.io 3@x.io 4@x.io 5@x.io 6@x.io");
    await page.getByRole("button", { name: "Export the matching insights" }).click();
    await expect(flash(page).textContent()).resolves.toContain("recipients: must list at most 5 e-mail addresses");

    await page.getByRole("button", { name: "Offboard" }).first().click();
    await expect(flash(page).textContent()).resolves.toContain("Offboard requested");
  }, WALK_MS);

  it("no page asked for anything outside the service, and none logged an error", () => {
    expect(consoleErrors).toEqual([]);
    expect(requested.length).toBeGreaterThan(50);
    const outside = requested.filter((u) => !u.startsWith(served.url) && !u.startsWith("data:") && !u.startsWith("blob:"));
    expect(outside).toEqual([]);
  });
});
