import ipaddr from "ipaddr.js";

// The classes an IP address counts as, for the fetch-target policy (host-policy.ts,
// docs/security.md "Fetch targets"): an IPv4 address carried inside an IPv6 form (mapped,
// compatible, NAT64, 6to4, Teredo) counts as that IPv4 address, so no spelling slips past a
// class the policy denies.

export const ADDRESS_CLASSES = [
  "loopback",
  "link-local",
  "private",
  "unique-local",
  "unspecified",
  "multicast",
  "broadcast",
  "public",
] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

/** One resolved address with every class it counts as (an IPv4 form inside IPv6 counts as that IPv4). */
export interface ClassifiedAddress {
  address: string;
  family: 4 | 6;
  classes: AddressClass[];
  /** The IPv4 address an IPv6 form carries (mapped, compatible, 6to4, NAT64, Teredo), when any. */
  embedded?: string;
}

export function classifyAddress(text: string): ClassifiedAddress {
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === "ipv4") {
    return { address: parsed.toString(), family: 4, classes: ipv4Classes(parsed as ipaddr.IPv4) };
  }
  const v6 = parsed as ipaddr.IPv6;
  const classes = new Set<AddressClass>();
  const embedded = embeddedIpv4(v6);
  if (embedded) for (const c of ipv4Classes(embedded)) classes.add(c);
  // As string: ipaddr.js's types do not list every range it answers (deprecatedSiteLocal).
  switch (v6.range() as string) {
    case "unspecified":
      // Connecting to :: reaches this machine, as 0.0.0.0 does.
      classes.add("unspecified").add("loopback");
      break;
    case "loopback":
      classes.add("loopback");
      break;
    case "linkLocal":
      classes.add("link-local");
      break;
    case "multicast":
      classes.add("multicast");
      break;
    case "uniqueLocal":
    case "deprecatedSiteLocal":
      classes.add("unique-local");
      break;
  }
  if (classes.size === 0) classes.add("public");
  else if (classes.size > 1) classes.delete("public");
  const result: ClassifiedAddress = { address: v6.toString(), family: 6, classes: [...classes] };
  if (embedded) result.embedded = embedded.toString();
  return result;
}

function ipv4Classes(v4: ipaddr.IPv4): AddressClass[] {
  switch (v4.range()) {
    case "unspecified":
      // 0.0.0.0/8: the kernel connects 0.0.0.0 to this machine.
      return ["unspecified", "loopback"];
    case "loopback":
      return ["loopback"];
    case "linkLocal":
      return ["link-local"];
    case "multicast":
      return ["multicast"];
    case "broadcast":
      return ["broadcast"];
    case "private":
    case "carrierGradeNat":
      return ["private"];
    default:
      return ["public"];
  }
}

/**
 * The IPv4 address an IPv6 address stands for: IPv4-mapped `::ffff:a.b.c.d` and its RFC 6145
 * form, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::` and
 * Teredo (the client address, inverted, in the last 32 bits).
 */
function embeddedIpv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = v6.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (v6.range()) {
    case "ipv4Mapped":
    case "rfc6145":
    case "rfc6052":
      return v4(p[6]!, p[7]!);
    case "6to4":
      return v4(p[1]!, p[2]!);
    case "teredo":
      return v4(~p[6]! & 0xffff, ~p[7]! & 0xffff);
  }
  // IPv4-compatible (deprecated): the first 96 bits zero, other than :: and ::1.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return v4(p[6]!, p[7]!);
  return undefined;
}
