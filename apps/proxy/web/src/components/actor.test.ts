import { describe, expect, it } from "vitest";
import { actorName } from "./actor.js";

describe("actorName", () => {
  const labels = new Map([["0b7c", "ci deploys"]]);

  it("names a token's actor by the token's label", () => {
    expect(actorName("token:0b7c", labels)).toEqual({ name: "ci deploys", token: true });
  });

  it("keeps a person, an unknown token and a token without readable labels as the API names them", () => {
    expect(actorName("olga@example.com", labels)).toEqual({ name: "olga@example.com", token: false });
    expect(actorName("token:ffff", labels)).toEqual({ name: "token:ffff", token: false });
    expect(actorName("token:0b7c", new Map())).toEqual({ name: "token:0b7c", token: false });
  });
});
