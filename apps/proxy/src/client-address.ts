import type { Context } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** `trusted_proxies`, parsed: the peers whose X-Forwarded-* headers are believed. */
export type TrustedProxies = readonly Range[];

/** Parses a `trusted_proxies` entry (an IP or a CIDR); throws when it is neither. */
export function parseTrustedProxy(entry: string): Range {
  const text = entry.trim();
  if (text.includes("/")) return ipaddr.parseCIDR(text);
  const address = ipaddr.parse(text);
  return [address, address.kind() === "ipv4" ? 32 : 128];
}

function trusted(address: string, ranges: TrustedProxies): boolean {
  if (!ipaddr.isValid(address)) return false;
  // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d.
  const parsed = ipaddr.process(address);
  return ranges.some((range) => parsed.kind() === range[0].kind() && parsed.match(range));
}

/** The TCP peer's address, or `unknown` (app.request() in unit tests has no socket). */
function peerAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * Whether the TCP peer is one of `trusted_proxies`: only then are its X-Forwarded-For,
 * X-Forwarded-Proto and X-Forwarded-Host believed (docs/proxy.md "Behind a load balancer").
 */
export function fromTrustedProxy(c: Context, trustedProxies: TrustedProxies): boolean {
  return trustedProxies.length > 0 && trusted(peerAddress(c), trustedProxies);
}

/**
 * The address the failed-sign-in throttle counts (docs/proxy.md "Failed sign-ins"): the TCP
 * peer, unless that peer is one of `trusted_proxies`; then the nearest X-Forwarded-For entry
 * (right to left) that is not itself a trusted proxy. Entries further left are written by the
 * client and never trusted, so a forged header cannot pick another client's count.
 */
export function clientAddress(c: Context, trustedProxies: TrustedProxies): string {
  const peer = peerAddress(c);
  if (!trusted(peer, trustedProxies)) return peer;
  const forwarded = (c.req.header("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--) if (!trusted(forwarded[i]!, trustedProxies)) return forwarded[i]!;
  return forwarded[0] ?? peer;
}
