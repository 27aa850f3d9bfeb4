import { describe, expect, it } from "vitest";
import { hostMatches, hostRefusal } from "./host-policy.js";

describe("hostMatches", () => {
  it("matches exact names case-insensitively and *.suffix only for subdomains", () => {
    expect(hostMatches("API.example.com", "api.example.com")).toBe(true);
    expect(hostMatches("*.example.com", "a.b.example.com")).toBe(true);
    expect(hostMatches("*.example.com", "example.com"), "the suffix form does not match the bare domain").toBe(false);
    expect(hostMatches("*.example.com", "badexample.com")).toBe(false);
    expect(hostMatches("::1", "[::1]"), "IPv6 brackets are ignored").toBe(true);
  });
});

describe("hostRefusal", () => {
  it("allows anything by default", () => {
    expect(hostRefusal("anything.test", [], [])).toBeUndefined();
  });
  it("refuses a denied host even when it is also allowed, naming --fetch-deny and the entry", () => {
    expect(hostRefusal("evil.test", ["evil.test"], ["evil.test"])).toBe(
      'host "evil.test" is refused by --fetch-deny (entry "evil.test")',
    );
  });
  it("refuses a host outside a non-empty allow list, naming --fetch-allow", () => {
    expect(hostRefusal("other.test", ["*.corp.test"], [])).toBe(
      'host "other.test" is not in --fetch-allow (*.corp.test)',
    );
    expect(hostRefusal("svc.corp.test", ["*.corp.test"], [])).toBeUndefined();
  });
});
