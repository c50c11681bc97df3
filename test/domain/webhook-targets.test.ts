import { describe, expect, it } from "vitest";
import { checkTarget, classifyAddress, refusedAddress } from "../../src/domain/webhook-targets.ts";

describe("classifyAddress", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["93.184.216.34", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["169.254.169.254", "cloud metadata"],
    ["100.100.100.200", "cloud metadata"],
    ["169.254.1.1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fd00:ec2::254", "cloud metadata"],
    ["ff02::1", "multicast"],
    ["::ffff:169.254.169.254", "cloud metadata"],
    ["::ffff:a9fe:a9fe", "cloud metadata"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:8.8.8.8", "public"],
    ["::7f00:1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "cloud metadata"],
    ["64:ff9b::10.0.0.1", "private"],
    ["64:ff9b:1::a00:1", "private"],
    ["2002:a9fe:a9fe::1", "cloud metadata"],
    ["2001:db8::1", "reserved"],
    ["2001:0:4136:e378::1", "reserved"],
    ["2606:4700:4700::1111", "public"],
    ["2a00:1450:4009:81c::200e", "public"],
  ])("%s is %s", (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it("is undefined for names and malformed addresses", () => {
    for (const s of ["example.com", "1.2.3", "1.2.3.256", "1:2:3:4:5:6:7:8:9", "1::2::3", "::ffff:1.2.3.999", "g::1"]) {
      expect(classifyAddress(s)).toBeUndefined();
    }
  });
});

describe("checkTarget", () => {
  const refusedIn = (url: string, policy: "local" | "public") => {
    const r = checkTarget(url, policy);
    return r.ok ? undefined : r.rule;
  };

  it("refuses link-local, metadata, unspecified, multicast and broadcast in every mode, in every numeric form", () => {
    for (const policy of ["local", "public"] as const) {
      for (const url of [
        "http://169.254.169.254/latest/meta-data/",
        "http://2852039166/",
        "http://0xa9fea9fe/",
        "http://0251.0376.0251.0376/",
        "http://169.254.43518/",
        "http://[::ffff:169.254.169.254]/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://[64:ff9b::169.254.169.254]/",
        "http://[fe80::1]/",
        "http://[fd00:ec2::254]/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://METADATA.GOOGLE.INTERNAL./",
        "http://0.0.0.0:3000/",
        "http://0/",
        "http://224.0.0.1/",
        "http://255.255.255.255/",
      ]) {
        expect(refusedIn(url, policy), `${url} in ${policy}`).toMatch(/refused in every mode/);
      }
    }
  });

  it("allows loopback and private addresses in local mode only", () => {
    for (const url of ["http://127.0.0.1:4000/", "http://2130706433/", "http://0x7f.1/", "http://localhost:4000/", "http://[::1]/", "http://10.0.0.1/", "http://192.168.0.2/", "http://[fd12::1]/"]) {
      expect(refusedIn(url, "local"), url).toBeUndefined();
      expect(refusedIn(url, "public"), url).toMatch(/WEBHOOK_TARGETS=public allows only public addresses/);
    }
  });

  it("names the address a numeric host stands for", () => {
    expect(refusedIn("http://2130706433/", "public")).toBe("127.0.0.1 is a loopback address, and WEBHOOK_TARGETS=public allows only public addresses");
  });

  it("leaves names to the connect-time check and refuses credentials", () => {
    expect(checkTarget("https://example.com/wh", "public")).toEqual({ ok: true, name: "example.com" });
    expect(checkTarget("https://8.8.8.8/wh", "public")).toEqual({ ok: true });
    expect(refusedIn("https://user:pass@example.com/", "local")).toMatch(/credentials/);
    expect(refusedIn("https://user@example.com/", "local")).toMatch(/credentials/);
    expect(refusedIn("ftp://example.com/", "local")).toMatch(/http or https/);
  });
});

describe("refusedAddress", () => {
  it("refuses a name when any address it resolves to is refused", () => {
    expect(refusedAddress(["93.184.216.34"], "public")).toBeUndefined();
    expect(refusedAddress(["93.184.216.34", "10.1.2.3"], "public")).toEqual({ address: "10.1.2.3", cls: "private" });
    expect(refusedAddress(["10.1.2.3"], "local")).toBeUndefined();
    expect(refusedAddress(["169.254.169.254"], "local")).toEqual({ address: "169.254.169.254", cls: "cloud metadata" });
  });
});
