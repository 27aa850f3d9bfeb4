import { describe, expect, it } from "vitest";
import { formatListenUrl, parseListenAddress } from "./listen-address.js";

describe("parseListenAddress", () => {
  it("reads HOST:PORT, :PORT (all interfaces), [v6]:PORT and PORT", () => {
    expect(parseListenAddress("127.0.0.1:8448")).toEqual({ host: "127.0.0.1", port: 8448 });
    expect(parseListenAddress(":8448")).toEqual({ host: "0.0.0.0", port: 8448 });
    expect(parseListenAddress("[::1]:0")).toEqual({ host: "::1", port: 0 });
    expect(parseListenAddress("9000")).toEqual({ host: "0.0.0.0", port: 9000 });
  });

  it("refuses other forms, naming the source and the expected forms", () => {
    expect(() => parseListenAddress("localhost")).toThrow(
      '--http "localhost" is not a listen address; expected HOST:PORT, :PORT or PORT (0-65535)',
    );
    expect(() => parseListenAddress(":65536", "listen")).toThrow('listen ":65536" is not a listen address');
    expect(() => parseListenAddress("::1:80")).toThrow("is not a listen address");
  });

  it("shows a wildcard bind as loopback in the logged URL", () => {
    expect(formatListenUrl("0.0.0.0", 8448)).toBe("http://127.0.0.1:8448");
    expect(formatListenUrl("::1", 1)).toBe("http://[::1]:1");
  });
});
