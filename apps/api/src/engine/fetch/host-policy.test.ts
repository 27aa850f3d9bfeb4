import { describe, expect, it } from "vitest";
import { checkFetchTarget, createFetchPolicy, type FetchPolicySettings, knownLiteralVerdict } from "./host-policy.js";

const policy = (overrides: Partial<FetchPolicySettings> = {}) =>
  createFetchPolicy({ allow: [], deny: [], allowClasses: [], denyClasses: [], boundToLoopback: false, ...overrides });

/** What the URL parser leaves in `hostname` for each spelling a fetch task might use. */
const hostOf = (spelling: string) => new URL(`http://${spelling}:8080/x`).hostname;

// Every spelling from issue 13 that reached loopback or the metadata address, after the URL parser.
const LOOPBACK_SPELLINGS = ["0.0.0.0", "[::]", "[::ffff:127.0.0.1]", "127.0.0.2", "127.0.0.1", "[::1]", "localhost"];

describe("checkFetchTarget: the default policy", () => {
  it.each(LOOPBACK_SPELLINGS)("refuses %s when the server listens beyond loopback", async (spelling) => {
    const verdict = await checkFetchTarget(hostOf(spelling), policy());
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(
      /loopback address: fetch tasks may not call this machine while the server listens beyond loopback; --fetch-allow-class loopback allows them|unspecified address: unspecified addresses are refused by default; --fetch-allow-class unspecified,loopback allows them/,
    );
  });

  it("says what a name resolved to, through the real resolver (localhost from /etc/hosts)", async () => {
    const verdict = await checkFetchTarget("localhost", policy());
    expect(!verdict.ok && verdict.reason).toMatch(
      /^host "localhost" resolves to (127\.0\.0\.1|::1), a loopback address: fetch tasks may not call this machine/,
    );
  });

  it.each(["169.254.169.254", "[::ffff:a9fe:a9fe]", "[fe80::1]"])(
    "refuses the link-local (cloud metadata) address %s even when bound to loopback",
    async (spelling) => {
      const verdict = await checkFetchTarget(hostOf(spelling), policy({ boundToLoopback: true }));
      expect(!verdict.ok && verdict.reason).toContain(
        "a link-local address: link-local addresses (cloud metadata among them) are refused by default; --fetch-allow-class link-local allows them",
      );
    },
  );

  it("explains an IPv4 address carried in IPv6", async () => {
    const verdict = await checkFetchTarget(hostOf("[::ffff:a9fe:a9fe]"), policy());
    expect(!verdict.ok && verdict.reason).toBe(
      "::ffff:a9fe:a9fe (which carries the IPv4 address 169.254.169.254), a link-local address: link-local addresses (cloud metadata among them) are refused by default; --fetch-allow-class link-local allows them",
    );
  });

  it.each(["224.0.0.1", "[ff02::1]", "255.255.255.255"])("refuses %s (multicast, broadcast)", async (spelling) => {
    expect((await checkFetchTarget(hostOf(spelling), policy({ boundToLoopback: true }))).ok).toBe(false);
  });

  it("allows loopback when the server itself listens on loopback, and private ranges always", async () => {
    for (const spelling of ["127.0.0.2", "[::1]", "[::ffff:127.0.0.1]", "localhost"])
      expect((await checkFetchTarget(hostOf(spelling), policy({ boundToLoopback: true }))).ok, spelling).toBe(true);
    for (const spelling of ["10.0.0.1", "192.168.0.10", "[fd00::1]", "[::ffff:10.0.0.1]"])
      expect((await checkFetchTarget(hostOf(spelling), policy())).ok, spelling).toBe(true);
  });

  it("answers the address to connect to, the one it checked", async () => {
    expect(await checkFetchTarget(hostOf("[::ffff:127.0.0.1]"), policy({ boundToLoopback: true }))).toEqual({
      ok: true,
      address: "::ffff:7f00:1",
      family: 6,
    });
  });
});

describe("checkFetchTarget: flags", () => {
  it("re-allows each denied class with --fetch-allow-class", async () => {
    const cases: [string, string[]][] = [
      ["127.0.0.2", ["loopback"]],
      ["[::ffff:127.0.0.1]", ["loopback"]],
      ["localhost", ["loopback"]],
      ["0.0.0.0", ["unspecified", "loopback"]],
      ["[::]", ["unspecified", "loopback"]],
      ["169.254.169.254", ["link-local"]],
      ["[::ffff:a9fe:a9fe]", ["link-local"]],
      ["224.0.0.1", ["multicast"]],
      ["255.255.255.255", ["broadcast"]],
    ];
    for (const [spelling, classes] of cases) {
      expect((await checkFetchTarget(hostOf(spelling), policy({ allowClasses: classes }))).ok, spelling).toBe(true);
      if (classes.length > 1) {
        // 0.0.0.0 reaches this machine: re-allowing "unspecified" alone is not enough.
        expect((await checkFetchTarget(hostOf(spelling), policy({ allowClasses: [classes[0]!] }))).ok).toBe(false);
      }
    }
  });

  it("denies by resolved address: an IP or CIDR in --fetch-deny catches every spelling of it", async () => {
    const p = policy({ boundToLoopback: true, deny: ["127.0.0.0/8", "::1", "169.254.169.254"] });
    for (const spelling of ["127.0.0.1", "127.0.0.2", "[::ffff:127.0.0.1]", "[::ffff:7f00:2]", "[::1]", "localhost"]) {
      const verdict = await checkFetchTarget(hostOf(spelling), p);
      expect(!verdict.ok && verdict.reason, spelling).toMatch(
        /refused by --fetch-deny \(entry "(127\.0\.0\.0\/8|::1)"\)$/,
      );
    }
    const metadata = await checkFetchTarget(
      hostOf("[::ffff:a9fe:a9fe]"),
      policy({ allowClasses: ["link-local"], deny: ["169.254.169.254"] }),
    );
    expect(!metadata.ok && metadata.reason).toContain('refused by --fetch-deny (entry "169.254.169.254")');
  });

  it("denies names and *.suffix before resolving", async () => {
    const p = policy({ deny: ["internal.example", "*.corp.example"] });
    expect(await checkFetchTarget("internal.example", p)).toEqual({
      ok: false,
      reason: 'host "internal.example" is refused by --fetch-deny (entry "internal.example")',
    });
    expect((await checkFetchTarget("a.b.corp.example", p)).ok).toBe(false);
  });

  it("--fetch-deny-class denies private ranges and loopback even when bound to loopback", async () => {
    const p = policy({ boundToLoopback: true, denyClasses: ["private", "unique-local", "loopback"] });
    for (const [spelling, c] of [
      ["10.0.0.1", "private"],
      ["[fd00::1]", "unique-local"],
      ["127.0.0.1", "loopback"],
    ] as const) {
      const verdict = await checkFetchTarget(hostOf(spelling), p);
      expect(!verdict.ok && verdict.reason).toMatch(new RegExp(`refused by --fetch-deny-class ${c}$`));
    }
  });

  it("--fetch-allow admits names, wildcards, IPs and CIDRs, and nothing else", async () => {
    const resolve = async (host: string) => (host === "api.partner.example" ? ["10.9.0.4"] : ["93.184.216.34"]);
    const p = policy({ allow: ["api.partner.example", "*.svc.example", "192.0.2.10", "10.20.0.0/16", "fd00::/8"] });
    for (const host of ["api.partner.example", "x.svc.example", "192.0.2.10", "10.20.3.4", "[fd00::5]"])
      expect((await checkFetchTarget(hostOf(host), p, resolve)).ok, host).toBe(true);
    const outside = await checkFetchTarget("other.example", p, resolve);
    expect(!outside.ok && outside.reason).toBe(
      'host "other.example" is not in --fetch-allow (api.partner.example, *.svc.example, 192.0.2.10, 10.20.0.0/16, fd00::/8)',
    );
    expect((await checkFetchTarget("10.21.0.1", p, resolve)).ok).toBe(false);
  });

  it("an allowed name that resolves to a denied address is still refused", async () => {
    const resolve = async () => ["169.254.169.254"];
    const verdict = await checkFetchTarget(
      "metadata.partner.example",
      policy({ allow: ["*.partner.example"] }),
      resolve,
    );
    expect(!verdict.ok && verdict.reason).toBe(
      'host "metadata.partner.example" resolves to 169.254.169.254, a link-local address: link-local addresses (cloud metadata among them) are refused by default; --fetch-allow-class link-local allows them',
    );
  });

  it("refuses a name when any of its addresses is denied", async () => {
    const resolve = async () => ["93.184.216.34", "127.0.0.1"];
    expect((await checkFetchTarget("mixed.example", policy(), resolve)).ok).toBe(false);
  });

  it("reports a name that does not resolve", async () => {
    const verdict = await checkFetchTarget("no-such-host.invalid", policy());
    expect(!verdict.ok && verdict.reason).toMatch(
      /^host "no-such-host.invalid" could not be resolved \(ENOTFOUND|EAI_AGAIN/,
    );
  });

  it("refuses malformed entries and classes at start-up, naming the flag", () => {
    expect(() => policy({ deny: ["10.0.0.0/33"] })).toThrow(
      '--fetch-deny "10.0.0.0/33" is not a CIDR range; expected e.g. 10.0.0.0/8 or fd00::/8',
    );
    expect(() => policy({ allow: ["http://x"] })).toThrow(
      '--fetch-allow "http://x" is not a host, *.suffix, IP address or CIDR range',
    );
    expect(() => policy({ allowClasses: ["public"] })).toThrow('--fetch-allow-class "public" is not an address class');
    expect(() => policy({ denyClasses: ["lan"] })).toThrow('--fetch-deny-class "lan" is not an address class');
  });

  it("remembers the verdict on an IP literal per policy, and resolves a name on every call", async () => {
    const p = policy({ boundToLoopback: true });
    expect(knownLiteralVerdict("127.0.0.1", p)).toBeUndefined();
    const first = await checkFetchTarget("127.0.0.1", p);
    expect(first).toEqual({ ok: true, address: "127.0.0.1", family: 4 });
    expect(knownLiteralVerdict("127.0.0.1", p)).toBe(first);
    expect(await checkFetchTarget("127.0.0.1", p)).toBe(first);
    // The same literal under another policy has its own verdict.
    expect((await checkFetchTarget("127.0.0.1", policy())).ok).toBe(false);
    expect(knownLiteralVerdict("127.0.0.1", p)).toBe(first);

    const asked: string[] = [];
    const answers = [["93.184.216.34"], ["169.254.169.254"]];
    const resolve = async (host: string) => {
      asked.push(host);
      return answers[asked.length - 1]!;
    };
    expect((await checkFetchTarget("rebinding.example", p, resolve)).ok).toBe(true);
    expect((await checkFetchTarget("rebinding.example", p, resolve)).ok).toBe(false);
    expect(asked).toEqual(["rebinding.example", "rebinding.example"]);
    expect(knownLiteralVerdict("rebinding.example", p)).toBeUndefined();
  });
});
