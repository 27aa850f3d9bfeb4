import { describe, expect, it } from "vitest";
import { can, lifecycleVerbs } from "./permissions.js";

describe("can", () => {
  it("admits everything when there is no login (null permissions)", () => {
    expect(can(null, "admin")).toBe(true);
  });

  it("admits a listed permission and anything for admin, nothing else", () => {
    expect(can(["read", "operate"], "operate")).toBe(true);
    expect(can(["read"], "operate")).toBe(false);
    expect(can(["admin"], "deploy")).toBe(true);
    expect(can([], "read")).toBe(false);
  });
});

describe("lifecycleVerbs", () => {
  const root = (status: string) => ({ status, isRoot: true });

  it("offers pause, cancel and upgrade on a running root", () => {
    expect(lifecycleVerbs(root("running"), null)).toEqual(["pause", "cancel", "upgrade"]);
  });

  it("offers resume on a paused or pausing root, never pause, and reset once it is paused", () => {
    expect(lifecycleVerbs(root("paused"), null)).toEqual(["resume", "cancel", "upgrade", "reset"]);
    expect(lifecycleVerbs(root("pausing"), null)).toEqual(["resume", "cancel", "upgrade"]);
  });

  it("offers retry and reset on a failed root", () => {
    expect(lifecycleVerbs(root("failed"), null)).toEqual(["retry", "reset"]);
  });

  it("offers only reset on a completed or raised root, nothing on a cancelled or cancelling one", () => {
    for (const status of ["completed", "raised"]) expect(lifecycleVerbs(root(status), null), status).toEqual(["reset"]);
    for (const status of ["cancelled", "cancelling"]) expect(lifecycleVerbs(root(status), null), status).toEqual([]);
  });

  it("offers nothing on a child: the verbs refuse child ids", () => {
    expect(lifecycleVerbs({ status: "running", isRoot: false }, null)).toEqual([]);
  });

  it("hides the operate verbs without operate and upgrade without deploy", () => {
    expect(lifecycleVerbs(root("running"), ["read"])).toEqual([]);
    expect(lifecycleVerbs(root("running"), ["read", "operate"])).toEqual(["pause", "cancel"]);
    expect(lifecycleVerbs(root("running"), ["deploy"])).toEqual(["upgrade"]);
    expect(lifecycleVerbs(root("failed"), ["admin"])).toEqual(["retry", "reset"]);
    expect(lifecycleVerbs(root("failed"), ["read", "deploy"])).toEqual([]);
  });
});
