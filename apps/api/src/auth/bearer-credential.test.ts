import { describe, expect, it } from "vitest";
import { parseBearerCredential } from "./bearer-credential.js";

const SECRET = `svc_sk_${"A".repeat(43)}`;
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln";

describe("parseBearerCredential", () => {
  it("refuses a missing or blank header", () => {
    expect(parseBearerCredential(undefined).kind).toBe("refused");
    expect(parseBearerCredential("").kind).toBe("refused");
    expect(parseBearerCredential("   ").kind).toBe("refused");
  });

  it("classifies an svc_sk_ secret as a token", () => {
    expect(parseBearerCredential(`Bearer ${SECRET}`)).toEqual({ kind: "token", secret: SECRET });
  });

  it("classifies a compact JWS as a JWT", () => {
    expect(parseBearerCredential(`Bearer ${JWT}`)).toEqual({ kind: "jwt", jwt: JWT });
  });

  it("treats the scheme case-insensitively and tolerates extra spaces around the credential", () => {
    expect(parseBearerCredential(`bearer ${SECRET}`)).toEqual({ kind: "token", secret: SECRET });
    expect(parseBearerCredential(`BEARER   ${SECRET}  `)).toEqual({ kind: "token", secret: SECRET });
  });

  it("still hands an alg-none JWT (empty signature) to the verifier, which refuses it", () => {
    expect(parseBearerCredential("Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.").kind).toBe("jwt");
  });

  it("refuses other schemes, a missing credential, several words and unknown shapes", () => {
    for (const header of [
      `Basic ${SECRET}`,
      `Token ${SECRET}`,
      SECRET,
      "Bearer",
      "Bearer    ",
      `Bearer ${SECRET} extra`,
      "Bearer hello",
      "Bearer a.b",
    ]) {
      expect(parseBearerCredential(header).kind, header).toBe("refused");
    }
  });

  it("never quotes the credential in a refusal reason", () => {
    const result = parseBearerCredential(`Basic ${SECRET}`);
    expect(result.kind === "refused" && result.reason.includes(SECRET)).toBe(false);
  });
});
