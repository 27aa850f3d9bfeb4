import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { isLoopback, type ServerConfig } from "../../config.js";
import { ADDRESS_CLASSES, type AddressClass, type ClassifiedAddress, classifyAddress } from "./address-class.js";

/**
 * Where a fetch task may connect (docs/security.md "Fetch targets"). The policy applies to the
 * addresses a host resolves to, never to its spelling: `0.0.0.0`, `[::]`, `[::ffff:127.0.0.1]`,
 * `127.0.0.2` and a name from /etc/hosts all land on loopback. The caller connects to exactly
 * the address checked here (http-call.ts pins it), so a second DNS answer cannot switch it.
 */

/** Denied unless `--fetch-allow-class` names them; loopback too unless the server listens on loopback. */
const DENIED_BY_DEFAULT: readonly AddressClass[] = ["link-local", "unspecified", "multicast", "broadcast"];

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
export type HostEntry =
  | { kind: "host"; text: string; name: string }
  | { kind: "suffix"; text: string; suffix: string }
  | { kind: "range"; text: string; range: Range };

export interface FetchPolicy {
  allow: readonly HostEntry[];
  deny: readonly HostEntry[];
  deniedClasses: ReadonlySet<AddressClass>;
  /** The classes `--fetch-deny-class` named (the refusal names that flag rather than the one that re-allows). */
  explicitlyDenied: ReadonlySet<AddressClass>;
}

export interface FetchPolicySettings {
  allow: readonly string[];
  deny: readonly string[];
  allowClasses: readonly string[];
  denyClasses: readonly string[];
  boundToLoopback: boolean;
}

/** The policy of a server's `--fetch-*` flags and listen address; throws like createFetchPolicy. */
export function fetchPolicyOf(
  config: Pick<ServerConfig, "host" | "fetchAllowHosts" | "fetchDenyHosts" | "fetchAllowClasses" | "fetchDenyClasses">,
): FetchPolicy {
  return createFetchPolicy({
    allow: config.fetchAllowHosts,
    deny: config.fetchDenyHosts,
    allowClasses: config.fetchAllowClasses,
    denyClasses: config.fetchDenyClasses,
    boundToLoopback: isLoopback(config.host),
  });
}

/** Builds the policy from the flags; throws one line naming the flag and the bad entry. */
export function createFetchPolicy(settings: FetchPolicySettings): FetchPolicy {
  const allowClasses = parseClasses(settings.allowClasses, "--fetch-allow-class");
  const denyClasses = parseClasses(settings.denyClasses, "--fetch-deny-class");
  const denied = new Set<AddressClass>(DENIED_BY_DEFAULT);
  if (!settings.boundToLoopback) denied.add("loopback");
  for (const c of allowClasses) denied.delete(c);
  for (const c of denyClasses) denied.add(c);
  return {
    allow: settings.allow.map((e) => parseHostEntry(e, "--fetch-allow")),
    deny: settings.deny.map((e) => parseHostEntry(e, "--fetch-deny")),
    deniedClasses: denied,
    explicitlyDenied: new Set(denyClasses),
  };
}

function parseClasses(list: readonly string[], flag: string): AddressClass[] {
  return list.map((raw) => {
    const c = raw.trim().toLowerCase();
    if (!(ADDRESS_CLASSES as readonly string[]).includes(c) || c === "public")
      throw new Error(
        `${flag} "${raw}" is not an address class; expected loopback, link-local, private, unique-local, unspecified, multicast or broadcast`,
      );
    return c as AddressClass;
  });
}

/** `host.example.com`, `*.example.com` (subdomains only), an IP (`127.0.0.1`, `::1`, `[::1]`) or a CIDR (`10.0.0.0/8`, `fd00::/8`). */
export function parseHostEntry(raw: string, flag: string): HostEntry {
  const text = raw.trim();
  const bare = text.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (/^[0-9a-f.:]+\/\d+$/.test(bare)) {
    try {
      return { kind: "range", text, range: ipaddr.parseCIDR(bare) };
    } catch {
      throw new Error(`${flag} "${raw}" is not a CIDR range; expected e.g. 10.0.0.0/8 or fd00::/8`);
    }
  }
  if (ipaddr.isValid(bare) && (bare.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(bare))) {
    const address = ipaddr.parse(bare);
    return { kind: "range", text, range: [address, address.kind() === "ipv4" ? 32 : 128] };
  }
  if (bare.startsWith("*.") && /^[a-z0-9.-]+$/.test(bare.slice(2)))
    return { kind: "suffix", text, suffix: bare.slice(1) };
  if (/^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?\.?$/.test(bare)) return { kind: "host", text, name: bare.replace(/\.$/, "") };
  throw new Error(`${flag} "${raw}" is not a host, *.suffix, IP address or CIDR range`);
}

export type Resolver = (host: string) => Promise<string[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address in its order. */
export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, order: "verbatim" })).map((a) => a.address);

export type TargetVerdict = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/**
 * Verdicts on IP-literal hosts, per policy: nothing is resolved for a literal, so its verdict
 * is a function of the host text and the (immutable) policy alone, and a fetch to a literal
 * need not parse and classify the address again on every call. A host name is never kept
 * here: it is resolved and checked on each call (a DNS answer may change).
 */
const literalVerdicts = new WeakMap<FetchPolicy, Map<string, TargetVerdict>>();
/** Distinct literals remembered per policy; past it, later ones are checked on every call. */
const MAX_LITERAL_VERDICTS = 1024;

/** checkFetchTarget's verdict on `hostname` when it is an IP literal already checked under `policy`. */
export function knownLiteralVerdict(hostname: string, policy: FetchPolicy): TargetVerdict | undefined {
  return literalVerdicts.get(policy)?.get(hostname);
}

/**
 * Checks a fetch target: `--fetch-deny` names, then every address the host resolves to
 * (`--fetch-deny` ranges, the denied classes), then `--fetch-allow` (the name, or every
 * address in its ranges). A host with any denied address is refused as a whole. The answer is
 * the address to connect to; the caller must connect to exactly that one.
 */
export async function checkFetchTarget(
  hostname: string,
  policy: FetchPolicy,
  resolve: Resolver = systemResolver,
): Promise<TargetVerdict> {
  const known = knownLiteralVerdict(hostname, policy);
  if (known !== undefined) return known;
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(host)) return checkTarget(host, policy, resolve);
  const verdict = await checkTarget(host, policy, resolve);
  let verdicts = literalVerdicts.get(policy);
  if (verdicts === undefined) literalVerdicts.set(policy, (verdicts = new Map()));
  if (verdicts.size < MAX_LITERAL_VERDICTS) verdicts.set(hostname, verdict);
  return verdict;
}

async function checkTarget(host: string, policy: FetchPolicy, resolve: Resolver): Promise<TargetVerdict> {
  const deniedName = policy.deny.find((e) => nameMatches(e, host));
  if (deniedName)
    return { ok: false, reason: `host "${host}" is refused by --fetch-deny (entry "${deniedName.text}")` };
  const literal = ipaddr.isValid(host);
  let addresses: string[];
  if (literal) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      return {
        ok: false,
        reason: `host "${host}" could not be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      };
    }
    if (addresses.length === 0) return { ok: false, reason: `host "${host}" resolves to no address` };
  }
  const classified = addresses.map(classifyAddress);
  const shown = (a: ClassifiedAddress) =>
    `${literal ? "" : `host "${host}" resolves to `}${a.address}${a.embedded ? ` (which carries the IPv4 address ${a.embedded})` : ""}`;
  for (const a of classified) {
    const deniedRange = policy.deny.find((e) => rangeMatches(e, a));
    if (deniedRange) return { ok: false, reason: `${shown(a)}, refused by --fetch-deny (entry "${deniedRange.text}")` };
    const denied = a.classes.filter((c) => policy.deniedClasses.has(c));
    if (denied.length > 0)
      return {
        ok: false,
        reason: `${shown(a)}, ${article(denied[0]!)} ${denied[0]} address: ${classAdvice(denied, policy)}`,
      };
  }
  if (policy.allow.length > 0) {
    const byName = policy.allow.some((e) => nameMatches(e, host));
    const byAddress = classified.every((a) => policy.allow.some((e) => rangeMatches(e, a)));
    if (!byName && !byAddress)
      return {
        ok: false,
        reason: `host "${host}" is not in --fetch-allow (${policy.allow.map((e) => e.text).join(", ")})`,
      };
  }
  const first = classified[0]!;
  return { ok: true, address: first.address, family: first.family };
}

function article(c: AddressClass): string {
  return /^[aeiou]/.test(c) ? "an" : "a";
}

/** Why `denied[0]` is refused, and the flag that would allow the address (every class it counts as that is denied). */
function classAdvice(denied: AddressClass[], policy: FetchPolicy): string {
  const c = denied[0]!;
  const explicit = denied.find((d) => policy.explicitlyDenied.has(d));
  if (explicit) return `refused by --fetch-deny-class ${explicit}`;
  const why =
    c === "loopback"
      ? "fetch tasks may not call this machine while the server listens beyond loopback"
      : c === "link-local"
        ? "link-local addresses (cloud metadata among them) are refused by default"
        : `${c} addresses are refused by default`;
  return `${why}; --fetch-allow-class ${denied.join(",")} allows them`;
}

function nameMatches(entry: HostEntry, host: string): boolean {
  if (entry.kind === "host") return entry.name === host.replace(/\.$/, "");
  if (entry.kind === "suffix") return host.replace(/\.$/, "").endsWith(entry.suffix);
  return false;
}

function rangeMatches(entry: HostEntry, a: ClassifiedAddress): boolean {
  if (entry.kind !== "range") return false;
  const candidates = [ipaddr.parse(a.address)];
  if (a.embedded) candidates.push(ipaddr.parse(a.embedded));
  return candidates.some((c) => c.kind() === entry.range[0].kind() && c.match(entry.range));
}
