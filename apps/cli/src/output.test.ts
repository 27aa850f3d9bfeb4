import { describe, expect, it } from "vitest";
import type { CliIo } from "./cli-io.js";
import { createOutput } from "./output.js";

/** The table a command would print on a stdout that is (or is not) a terminal of `columns`. */
function printed(isTTY: boolean, columns: number | undefined): string {
  let stdout = "";
  const stream = { write: (text: string) => void (stdout += text), isTTY, columns };
  const io = { stdout: stream, stderr: stream, env: { NO_COLOR: "1" } } as unknown as CliIo;
  createOutput(io, { color: false }).table(
    [{ header: "ID", keep: true }, { header: "NOTE" }],
    [["0123456789", "a note far longer than the forty columns of a narrow terminal, and than eighty columns too"]],
  );
  return stdout;
}

describe("tables", () => {
  it("fit a terminal's width, shortening free text with an ellipsis", () => {
    const lines = printed(true, 40).trimEnd().split("\n");
    expect(lines[1]).toBe("0123456789  a note far longer than the …");
    expect(Math.max(...lines.map((line) => line.length))).toBe(40);
  });

  it("take 80 columns on a terminal that does not say its width", () => {
    expect(printed(true, undefined).split("\n")[1]).toBe(
      "0123456789  a note far longer than the forty columns of a narrow terminal, and …",
    );
  });

  it("are never shortened when stdout is not a terminal, whatever width it claims", () => {
    for (const columns of [undefined, 40])
      expect(printed(false, columns)).toBe(
        "ID          NOTE\n0123456789  a note far longer than the forty columns of a narrow terminal, and than eighty columns too\n",
      );
  });
});
