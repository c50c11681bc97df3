import { describe, expect, it } from "vitest";
import { initialNetworkStatus } from "../../src/domain/location-status.ts";

describe("initial network status of a location", () => {
  it("is Active in test, whatever was asked", () => {
    expect(initialNetworkStatus(false, false)).toBe("Active");
    expect(initialNetworkStatus(false, true)).toBe("Active");
  });

  it("is Idle in live, or Syncing when the sync was asked for at creation", () => {
    expect(initialNetworkStatus(true, false)).toBe("Idle");
    expect(initialNetworkStatus(true, true)).toBe("Syncing");
  });
});
