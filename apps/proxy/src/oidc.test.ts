import { describe, expect, it } from "vitest";
import type { ProviderConfig } from "./config.js";
import { identityFromClaims, SignInError } from "./oidc.js";

const provider: ProviderConfig = {
  id: "corp",
  name: "Corp",
  issuer: "https://sso",
  clientId: "c",
  clientSecret: "s",
  scopes: ["openid"],
  subjectClaim: "email",
  groupsClaim: "groups",
};

describe("identityFromClaims", () => {
  it("takes the subject from subject_claim and groups from groups_claim", () => {
    expect(identityFromClaims(provider, { sub: "1", email: "ann@example.com", groups: ["ops", 7, "devs"] })).toEqual({
      subject: "ann@example.com",
      groups: ["ops", "devs"],
    });
    expect(
      identityFromClaims(
        { ...provider, subjectClaim: "preferred_username", groupsClaim: "roles" },
        { preferred_username: "ann", roles: "ops" },
      ),
    ).toEqual({
      subject: "ann",
      groups: ["ops"],
    });
  });

  it("gives no groups when the claim is absent", () => {
    expect(identityFromClaims(provider, { email: "ann@example.com" }).groups).toEqual([]);
  });

  it("refuses an id_token without the subject claim, or with an unverified email", () => {
    expect(() => identityFromClaims(provider, { sub: "1" })).toThrow(SignInError);
    expect(() => identityFromClaims(provider, { sub: "1" })).toThrow(
      "the id_token has no email claim (the provider's subject_claim)",
    );
    expect(() => identityFromClaims(provider, { email: "ann@example.com", email_verified: false })).toThrow(
      "the email address is not verified",
    );
  });
});
