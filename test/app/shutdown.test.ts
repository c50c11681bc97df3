// The one shutdown path's order and its failures: the last part started is the first stopped, a part that
// fails to stop does not keep the ones after it running, and a second close waits for the first.
import { describe, expect, it } from "vitest";
import { createShutdown } from "../../src/app/shutdown.ts";

describe("shutdown", () => {
  it("stops the parts in the reverse order they were added", async () => {
    const stopped: string[] = [];
    const shutdown = createShutdown();
    for (const part of ["lock", "database", "bus", "roles", "http server"]) shutdown.add(part, () => void stopped.push(part));
    await shutdown.run();
    expect(stopped).toEqual(["http server", "roles", "bus", "database", "lock"]);
  });

  it("waits for each part before stopping the next and reports each one stopped", async () => {
    const events: string[] = [];
    const shutdown = createShutdown();
    shutdown.add("database", () => void events.push("database closing"));
    shutdown.add("roles", async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push("roles finished their batch");
    });
    await shutdown.run((part) => events.push(`${part} stopped`));
    expect(events).toEqual(["roles finished their batch", "roles stopped", "database closing", "database stopped"]);
  });

  it("stops the parts after one that fails, then rejects naming it", async () => {
    const stopped: string[] = [];
    const shutdown = createShutdown();
    shutdown.add("database", () => void stopped.push("database"));
    shutdown.add("bus", () => {
      throw new Error("broker gone");
    });
    shutdown.add("roles", () => void stopped.push("roles"));
    const failure = await shutdown.run().then(() => undefined, (err: unknown) => err as Error);
    expect(failure?.message).toBe("stopping the bus failed");
    expect((failure?.cause as Error).message).toBe("broker gone");
    expect(stopped).toEqual(["roles", "database"]);
  });

  it("names every part that failed when more than one did", async () => {
    const shutdown = createShutdown();
    shutdown.add("database", () => Promise.reject(new Error("closed twice")));
    shutdown.add("bus", () => Promise.reject(new Error("broker gone")));
    const failure = await shutdown.run().then(() => undefined, (err: unknown) => err as AggregateError);
    expect(failure).toBeInstanceOf(AggregateError);
    expect(failure!.errors.map((e: Error) => e.message)).toEqual(["stopping the bus failed", "stopping the database failed"]);
  });

  it("stops each part once however often it is run, and takes no part once stopping", async () => {
    let stops = 0;
    const shutdown = createShutdown();
    shutdown.add("roles", async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stops++;
    });
    await Promise.all([shutdown.run(), shutdown.run()]);
    await shutdown.run();
    expect(stops).toBe(1);
    expect(() => shutdown.add("http server", () => undefined)).toThrow("http server: started while the process is stopping");
  });
});
