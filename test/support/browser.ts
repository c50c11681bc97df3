// A real headless Chromium (Debian's `chromium`, driven by playwright-core) against the app served
// over HTTP, and screenshots saved under test-output/dashboard/ (CI keeps them as artifacts).
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { chromium, type Browser, type Page } from "playwright-core";
import { createWebApp } from "../../src/app/http.ts";
import type { Runtime } from "../../src/app/runtime.ts";

const CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];

/** The Chromium to drive; locally a missing one skips the browser suites, under CI it fails them. */
export function chromiumPath(): string | undefined {
  const found = CANDIDATES.find((p): p is string => !!p && existsSync(p));
  if (!found && process.env.CI === "true") {
    throw new Error("CI=true but no Chromium: install it (apt-get install chromium) or set CHROMIUM_PATH");
  }
  return found;
}

export const SCREENSHOTS = join(process.cwd(), "test-output", "dashboard");

export interface Served {
  url: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function serveAndLaunch(services: Runtime, adminToken: string, executablePath: string): Promise<Served> {
  const app = createWebApp(services, { adminToken });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  return {
    url: `http://127.0.0.1:${port}`,
    browser,
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The page's document, for functions that run in the page (not strings: the dashboard's CSP forbids eval). */
declare const document: { documentElement: { scrollWidth: number } };

/** Saves the page at 1280 px and at 390 px wide, full length, once it fits the width. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const original = page.viewportSize() ?? { width: 1280, height: 900 };
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    // Readable at this width: nothing wider than the window (wide tables scroll inside their frame).
    // Waiting for it also lets the page lay itself out again (Chart.js resizes its canvas after a frame).
    await page.waitForFunction((w) => document.documentElement.scrollWidth <= w, width, { timeout: 10_000 });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(original);
}

/** Visible form controls with no label (their own <label>, aria-label or aria-labelledby). */
export function unlabelledFields(page: Page): Promise<string[]> {
  return page.evaluate(`Array.from(document.querySelectorAll("input:not([type=hidden]), select, textarea"))
    .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby"))
    .map((el) => el.outerHTML.slice(0, 120))`);
}

/** The text of the element that has the keyboard focus. */
export const focused = (page: Page): Promise<string> => page.evaluate("document.activeElement ? document.activeElement.textContent.trim() : ''");

/**
 * Pages that record what they request and the errors their console shows: every test of the dashboard
 * asserts that nothing is fetched from elsewhere and that no page logs an error.
 */
export function watchedPages(served: () => Served) {
  const requested: string[] = [];
  const consoleErrors: string[] = [];
  async function newPage(): Promise<Page> {
    const context = await served().browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on("request", (r) => requested.push(r.url()));
    page.on("console", (m) => {
      // A 4xx answer (the API's refusal shown as a page, a refused form shown again) is logged by Chromium too; those are expected.
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource: the server responded with a status of 4")) {
        consoleErrors.push(`${page.url()}: ${m.text()}`);
      }
    });
    return page;
  }
  return { requested, consoleErrors, newPage };
}
