// Which dependency an error says is down: by type and code, never by message text.
import { describe, expect, it } from "vitest";
import { openPglite } from "../../../src/platform/db.ts";
import { DependencyUnavailableError, unavailableDependency } from "../../../src/platform/health/index.ts";

describe("unavailableDependency", () => {
  it("reads a statement on a closed embedded database as PostgreSQL down, whatever its message", async () => {
    const db = await openPglite(undefined);
    await db.close();
    const err = await db.query("select 1").then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyUnavailableError);
    expect(unavailableDependency(err)).toBe("postgres");
  });

  it("reads PostgreSQL's connection error codes, a kafkajs error and a cause chain", () => {
    expect(unavailableDependency(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe("postgres");
    expect(unavailableDependency(Object.assign(new Error("x"), { code: "08006" }))).toBe("postgres");
    expect(unavailableDependency(Object.assign(new Error("x"), { name: "KafkaJSConnectionError" }))).toBe("bus");
    expect(unavailableDependency(new Error("outer", { cause: new DependencyUnavailableError("bus", "y") }))).toBe("bus");
  });

  it("leaves an ordinary failure, even one whose text says the database is closed", () => {
    expect(unavailableDependency(new Error("PGlite is closed"))).toBeUndefined();
    expect(unavailableDependency(Object.assign(new Error("x"), { code: "23505" }))).toBeUndefined();
  });
});
