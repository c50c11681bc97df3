// Where webhooks may be delivered: each IP address falls in one class, and the target policy
// (WEBHOOK_TARGETS) says which classes a hook may reach. Used when a hook is created (its URL) and when the
// dispatcher connects (every address its host resolves to). No I/O.

/** `local`: public, loopback and private addresses (a receiver on the developer's machine); `public`: public unicast only. */
export type TargetPolicy = "local" | "public";
export const TARGET_POLICIES = ["local", "public"] as const;

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "cloud metadata"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved";

const ALLOWED: Record<TargetPolicy, ReadonlySet<AddressClass>> = {
  local: new Set(["public", "loopback", "private"]),
  public: new Set(["public"]),
};

/** Cloud instance metadata services, by name: refused in every mode whatever they resolve to. */
const METADATA_NAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
  "metadata.platformequinix.com",
  "metadata.packet.net",
]);

/** Metadata services by address (AWS, GCP, Azure, OpenStack, Oracle: 169.254.169.254; ECS; Alibaba; AWS IPv6). */
const METADATA_V4 = new Set(["169.254.169.254", "169.254.170.2", "169.254.170.23", "100.100.100.200"].map((a) => parseIPv4(a)!));
const METADATA_V6 = ["fd00:ec2::254", "fd00:ec2::23"].map((a) => parseIPv6(a)!);

/** A dotted-quad IPv4 address as a 32-bit number, or undefined. (Hosts from WHATWG URL are already normalised.) */
export function parseIPv4(s: string): number | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

/** An IPv6 address (without brackets; a zone id is ignored) as eight 16-bit groups, or undefined. */
export function parseIPv6(input: string): number[] | undefined {
  let s = input.toLowerCase();
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(s) || !s.includes(":")) return undefined;
  // An IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const lastColon = s.lastIndexOf(":");
  const tail = s.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = parseIPv4(tail);
    if (v4 === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const fill = 8 - head.length - rest.length;
  if (halves.length === 2 ? fill < 1 : head.length !== 8) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill("0"), ...rest];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}

const inV4 = (n: number, base: string, bits: number) => {
  const b = parseIPv4(base)!;
  const size = 2 ** (32 - bits);
  return Math.floor(n / size) === Math.floor(b / size);
};

function classifyIPv4(n: number): AddressClass {
  if (METADATA_V4.has(n)) return "cloud metadata";
  if (inV4(n, "0.0.0.0", 8)) return "unspecified";
  if (inV4(n, "127.0.0.0", 8)) return "loopback";
  if (inV4(n, "169.254.0.0", 16)) return "link-local";
  if (inV4(n, "10.0.0.0", 8) || inV4(n, "172.16.0.0", 12) || inV4(n, "192.168.0.0", 16) || inV4(n, "100.64.0.0", 10)) return "private";
  if (n === 0xffffffff) return "broadcast";
  if (inV4(n, "224.0.0.0", 4)) return "multicast";
  if (
    inV4(n, "240.0.0.0", 4) ||
    inV4(n, "192.0.0.0", 24) ||
    inV4(n, "192.0.2.0", 24) ||
    inV4(n, "198.18.0.0", 15) ||
    inV4(n, "198.51.100.0", 24) ||
    inV4(n, "203.0.113.0", 24) ||
    inV4(n, "192.88.99.0", 24)
  ) {
    return "reserved";
  }
  return "public";
}

const v4Of = (hi: number, lo: number) => hi * 65536 + lo;

function classifyIPv6(g: number[]): AddressClass {
  if (METADATA_V6.some((m) => m.every((x, i) => x === g[i]))) return "cloud metadata";
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return "unspecified";
  if (zeros(0, 7) && g[7] === 1) return "loopback";
  // Forms that carry an IPv4 address are what that address is: mapped (::ffff:a.b.c.d), compatible
  // (::a.b.c.d), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) and 6to4 (2002:AABB:CCDD::/48).
  if (zeros(0, 5) && g[5] === 0xffff) return classifyIPv4(v4Of(g[6]!, g[7]!));
  if (zeros(0, 6)) return classifyIPv4(v4Of(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyIPv4(v4Of(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return classifyIPv4(v4Of(g[6]!, g[7]!));
  if (g[0] === 0x2002) return classifyIPv4(v4Of(g[1]!, g[2]!));
  const first = g[0]!;
  if ((first & 0xffc0) === 0xfe80) return "link-local";
  if ((first & 0xff00) === 0xff00) return "multicast";
  if ((first & 0xfe00) === 0xfc00) return "private";
  // Teredo (its IPv4 is obfuscated), documentation, discard-only, ORCHID and the deprecated site-local range.
  if ((g[0] === 0x2001 && g[1] === 0) || (g[0] === 0x2001 && g[1] === 0xdb8) || (g[0] === 0x100 && zeros(1, 4))) return "reserved";
  if (g[0] === 0x2001 && (g[1]! & 0xfff0) === 0x10) return "reserved";
  if ((first & 0xe000) !== 0x2000) return "reserved";
  return "public";
}

/** The class of an IP address literal (IPv4 dotted quad or IPv6), or undefined when it is not one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4 = parseIPv4(address);
  if (v4 !== undefined) return classifyIPv4(v4);
  const v6 = parseIPv6(address);
  return v6 && classifyIPv6(v6);
}

/** Why the policy refuses an address of this class (the rule, for an error message), or undefined when it allows it. */
export function refusalOf(cls: AddressClass, policy: TargetPolicy): string | undefined {
  if (ALLOWED[policy].has(cls)) return undefined;
  if (ALLOWED.local.has(cls)) return `a ${cls} address, and WEBHOOK_TARGETS=public allows only public addresses`;
  return `a ${cls} address, refused in every mode`;
}

export type TargetCheck =
  | { ok: true; /** An IP literal is settled here; a name is checked again on every address it resolves to. */ name?: string }
  | { ok: false; rule: string };

const refused = (rule: string): TargetCheck => ({ ok: false, rule });

/**
 * A hook URL against the policy: an http(s) URL without credentials, whose host is not a metadata
 * name and, when it is an address (any numeric form WHATWG URL reads: `2130706433`, `0x7f.1`, `[::ffff:…]`),
 * one the policy allows. `localhost` and `*.localhost` are loopback.
 */
export function checkTarget(url: string, policy: TargetPolicy): TargetCheck {
  if (!URL.canParse(url)) return refused("must be an http or https URL");
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:") return refused("must be an http or https URL");
  if (u.username || u.password) return refused("must not carry credentials (user:password@): deliveries are authenticated by their signature");
  const host = u.hostname.toLowerCase().replace(/\.$/, "");
  const literal = host.startsWith("[") ? host.slice(1, -1) : host;
  const cls = classifyAddress(literal);
  if (cls) {
    const why = refusalOf(cls, policy);
    return why ? refused(`${host} is ${why}`) : { ok: true };
  }
  if (METADATA_NAMES.has(host)) return refused(`${host} is a cloud metadata service, refused in every mode`);
  if (host === "localhost" || host.endsWith(".localhost")) {
    const why = refusalOf("loopback", policy);
    return why ? refused(`${host} is ${why}`) : { ok: true };
  }
  return { ok: true, name: host };
}

/** The first of a name's resolved addresses the policy refuses, with its class, or undefined when all are allowed. */
export function refusedAddress(addresses: string[], policy: TargetPolicy): { address: string; cls: AddressClass } | undefined {
  for (const address of addresses) {
    const cls = classifyAddress(address) ?? "reserved";
    if (refusalOf(cls, policy)) return { address, cls };
  }
  return undefined;
}
