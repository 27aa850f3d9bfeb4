import { describe, expect, it } from "vitest";
import { actorName } from "./actor.js";

describe("actorName", () => {
  it("names a token's actor by the label the API gives it", () => {
    expect(actorName("token:0b7c", "ci deploys")).toEqual({ name: "ci deploys", token: true });
  });

  it("shows a person by their label, and a token whose label the API could not find as the API names it", () => {
    expect(actorName("olga@example.com", "olga@example.com")).toEqual({ name: "olga@example.com", token: false });
    expect(actorName("token:ffff", "token:ffff")).toEqual({ name: "token:ffff", token: false });
  });

  it("falls back to the raw actor when a server sends no label (one without the extension)", () => {
    expect(actorName("token:0b7c", undefined)).toEqual({ name: "token:0b7c", token: false });
    expect(actorName("olga@example.com", null)).toEqual({ name: "olga@example.com", token: false });
  });
});
