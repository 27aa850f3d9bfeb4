import { describe, expect, it } from "vitest";
import { DEFAULT_SERVER, normalizeServer, resolveConnection } from "./connection.js";

describe("resolveConnection", () => {
  it("defaults to the local server without a token", () => {
    expect(resolveConnection({}, {}, {})).toEqual({ server: DEFAULT_SERVER, token: undefined });
  });

  it("takes flag over environment over config", () => {
    const config = { server: "http://config:1", token: "svc_sk_config" };
    const env = { BATON_SERVER: "http://env:2", BATON_TOKEN: "svc_sk_env" };
    expect(resolveConnection({ server: "http://flag:3", token: "svc_sk_flag" }, env, config)).toEqual({
      server: "http://flag:3",
      token: "svc_sk_flag",
    });
    expect(resolveConnection({}, env, config)).toEqual({ server: "http://env:2", token: "svc_sk_env" });
    expect(resolveConnection({}, {}, config)).toEqual({ server: "http://config:1", token: "svc_sk_config" });
  });

  it("never sends the stored token to a server other than the stored one", () => {
    const config = { server: "http://config:1", token: "svc_sk_config" };
    expect(
      resolveConnection({ server: "http://elsewhere:1" }, {}, config).token,
      "the token would leak to another host",
    ).toBeUndefined();
    expect(resolveConnection({ server: "http://config:1/" }, {}, config).token).toBe("svc_sk_config");
  });
});

describe("normalizeServer", () => {
  it("drops trailing slashes", () => {
    expect(normalizeServer("http://127.0.0.1:8449/")).toBe("http://127.0.0.1:8449");
    expect(normalizeServer("https://baton.example.com/base/")).toBe("https://baton.example.com/base");
  });

  it.each(["localhost:8449", "ftp://x", "http://x/?a=1", "not a url"])("refuses %s as a usage error", (text) => {
    expect(() => normalizeServer(text)).toThrow(
      expect.objectContaining({ exitCode: 2, message: expect.stringContaining(`invalid server URL "${text}"`) }),
    );
  });
});
