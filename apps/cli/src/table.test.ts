import { describe, expect, it } from "vitest";
import { renderTable, truncate } from "./table.js";

describe("renderTable", () => {
  it("aligns columns under their headers and trims trailing space", () => {
    const out = renderTable(
      [{ header: "NAME" }, { header: "VERSION", align: "right" }],
      [
        ["orders", "v12"],
        ["b", "v3"],
      ],
      80,
    );
    expect(out.split("\n")).toEqual(["NAME    VERSION", "orders      v12", "b            v3"]);
  });

  it("shrinks the widest shrinkable column with an ellipsis to fit the width", () => {
    const id = "01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f";
    const out = renderTable([{ header: "ID", keep: true }, { header: "MESSAGE" }], [[id, "x".repeat(100)]], 60);
    const lines = out.split("\n");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines[1].startsWith(id), "ids stay whole so people can copy them").toBe(true);
    expect(lines[1].endsWith("…")).toBe(true);
  });

  it("puts a multi-line cell on one line", () => {
    expect(renderTable([{ header: "A" }], [["one\n  two"]], 80)).toBe("A\none two");
  });

  it("paints cells after measuring them, so colors do not break alignment", () => {
    const bold = (t: string) => `\x1b[1m${t}\x1b[22m`;
    const out = renderTable(
      [{ header: "S" }, { header: "T" }],
      [
        [{ text: "ok", paint: bold }, "x"],
        ["failed", "y"],
      ],
      80,
    );
    expect(out.split("\n")).toEqual(["S       T", `${bold("ok")}      x`, "failed  y"]);
  });
});

describe("truncate", () => {
  it("keeps short text and cuts long text with an ellipsis", () => {
    expect(truncate("abc", 3)).toBe("abc");
    expect(truncate("abcdef", 4)).toBe("abc…");
  });
});

describe("renderTable column economy", () => {
  it("hides optional columns nobody has a value in", () => {
    expect(renderTable([{ header: "A" }, { header: "ERROR", optional: true }], [["x", ""]], 80)).toBe("A\nx");
  });

  it("shortens shrinkable columns rather than dropping any while that is enough", () => {
    const columns = [{ header: "ID", keep: true }, { header: "STATUS" }, { header: "NOTE", dropOrder: 1 }];
    const out = renderTable(columns, [["0123456789", "running", "a long note that does not fit"]], 30);
    expect(out.split("\n")).toEqual(["ID          STATUS   NOTE", "0123456789  running  a long n…"]);
  });

  it("drops columns in dropOrder when even the shortest widths do not fit", () => {
    const columns = [
      { header: "ID", keep: true },
      { header: "STATUS", keep: true },
      { header: "UPDATED", keep: true, dropOrder: 1 },
    ];
    const out = renderTable(columns, [["0123456789", "running", "2026-01-01T00:00:00.000Z"]], 30);
    expect(out.split("\n")).toEqual(["ID          STATUS", "0123456789  running"]);
  });
});
