// Helpers for MID-insight tests: a client that speaks the Bearer scheme with the version header, and a
// premium account's live program seeded with generated insights.
import { SUPPORTED_VERSIONS } from "../../src/api/middleware/auth.ts";
import type { MidInsight } from "../../src/services/mid-insights/mid-insights.ts";
import { afterAll, beforeAll } from "vitest";
import { createHarness, expectStatus, type Engine, type Harness, type TestAccount } from "./harness.ts";

export const VERSION = SUPPORTED_VERSIONS[0];

export interface InsightsClient {
  get(path: string): Promise<Response>;
  post(path: string, body?: unknown): Promise<Response>;
}

/** Requests with `Authorization: Bearer <key>` and the version header, as MID insights need. */
export const insightsClient = (h: Harness, key: string): InsightsClient => {
  const headers = { Authorization: `Bearer ${key}`, [`${h.config.SERVICE_NAME}-Version`]: VERSION };
  return {
    get: (path) => h.request("GET", path, { headers }),
    post: (path, body) => h.request("POST", path, { headers, body: body ?? {} }),
  };
};

export interface SeededProgram {
  account: TestAccount;
  programId: string;
  client: InsightsClient;
  /** The list path of the program's insights. */
  path: string;
}

/** A premium account with a live program holding `count` generated insights. */
export async function seededProgram(h: Harness, count: number, seed = 7): Promise<SeededProgram> {
  const account = await h.createAccount({ tier: "premium" });
  const program = await expectStatus<{ id: string }>(await account.as("live").post("/v1/programs", { name: "Insights" }), 201);
  if (count > 0) {
    const seeded = await expectStatus<{ created: number }>(
      await h.admin("POST", `/admin/programs/${program.id}/mid-insights/seed`, { count, seed }),
      201,
    );
    if (seeded.created !== count) throw new Error(`seeded ${seeded.created} of ${count}`);
  }
  return {
    account,
    programId: program.id,
    client: insightsClient(h, account.keys.live),
    path: `/v1/programs/${program.id}/mid-insights`,
  };
}

export type Page = { items: MidInsight[]; count: number; last?: string };

/** Every page of a listing, following `last`. */
export async function allPages(client: InsightsClient, path: string, query: string): Promise<{ items: MidInsight[]; pages: Page[] }> {
  const pages: Page[] = [];
  let start: string | undefined;
  do {
    const q = [query, start ? `start=${encodeURIComponent(start)}` : ""].filter(Boolean).join("&");
    const page = await expectStatus<Page>(await client.get(`${path}?${q}`), 200);
    pages.push(page);
    start = page.last;
  } while (start);
  return { items: pages.flatMap((p) => p.items), pages };
}

/**
 * Before the file's tests, a harness on `engine` with a program of 240 seeded MID insights, all of them read,
 * handed to `take`; closed after them.
 */
export function useSeededListing(engine: Engine, take: (w: { h: Harness; p: SeededProgram; all: MidInsight[] }) => void): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    // Far from other files' service time: on a shared PostgreSQL, a clock advanced elsewhere runs the
    // simulated networks' due offboardings, which must not reach this program's pending requests.
    h = await createHarness({ engine, clockStart: "2031-01-06T12:00:00Z" });
    const p = await seededProgram(h, 240);
    take({ h, p, all: (await allPages(p.client, p.path, "limit=100")).items });
  });
  afterAll(() => h?.close());
}
