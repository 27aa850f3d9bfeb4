import { Fragment, useEffect, useRef, useState } from "react";
import { changeBlocks, type DiffLine, foldDiff } from "../line-diff.js";

const MARK = { same: " ", added: "+", removed: "-" } as const;

/**
 * A line diff with the unchanged regions folded (DIFF_CONTEXT lines kept around each change,
 * each fold a button that shows its lines) and Previous/Next change buttons that scroll to a
 * change and focus it (docs/ui.md "Compare").
 */
export function DiffView({ diff, from, to }: { diff: DiffLine[]; from: number | null; to: number | null }) {
  const blocks = changeBlocks(diff);
  const ranges = foldDiff(diff);
  // Folds opened by the reader, by the index of their first line (the page keys this view by its versions).
  const [opened, setOpened] = useState<ReadonlySet<number>>(new Set());
  const [current, setCurrent] = useState(-1);
  const tableRef = useRef<HTMLTableElement>(null);
  useEffect(() => {
    if (current < 0) return;
    const row = tableRef.current?.querySelector<HTMLTableRowElement>(`tr[data-change="${current}"]`);
    row?.scrollIntoView({ block: "center" });
    row?.focus({ preventScroll: true });
  }, [current]);
  const blockOf = new Map(blocks.map((block, i) => [block.start, i]));
  const currentBlock = blocks[current];
  const added = diff.filter((line) => line.kind === "added").length;
  const removed = diff.filter((line) => line.kind === "removed").length;

  return (
    <>
      <div className="diff-nav" role="toolbar" aria-label="Changes">
        <span aria-live="polite">
          {blocks.length === 0
            ? "No change."
            : current < 0
              ? `${blocks.length} ${blocks.length === 1 ? "change" : "changes"} (+${added} −${removed} lines)`
              : `Change ${current + 1} of ${blocks.length}`}
        </span>{" "}
        <button type="button" disabled={current <= 0} onClick={() => setCurrent(current - 1)}>
          ← Previous change
        </button>{" "}
        <button type="button" disabled={current >= blocks.length - 1} onClick={() => setCurrent(current + 1)}>
          Next change →
        </button>{" "}
        <button
          type="button"
          disabled={ranges.every((range) => !range.folded || opened.has(range.start))}
          onClick={() => setOpened(new Set(ranges.filter((range) => range.folded).map((range) => range.start)))}
        >
          Show all lines
        </button>
      </div>
      <table className="diff" ref={tableRef} aria-label={`Diff of v${from} and v${to}`}>
        <thead>
          <tr>
            <th scope="col">v{from}</th>
            <th scope="col">v{to}</th>
            <th scope="col">Line</th>
          </tr>
        </thead>
        <tbody>
          {ranges.map((range) =>
            range.folded && !opened.has(range.start) ? (
              <tr key={range.start} className="diff-fold">
                <td colSpan={3}>
                  <button type="button" onClick={() => setOpened(new Set([...opened, range.start]))}>
                    Show {range.end - range.start} unchanged {range.end - range.start === 1 ? "line" : "lines"} (
                    {lineSpan(diff, range.start, range.end)})
                  </button>
                </td>
              </tr>
            ) : (
              <Fragment key={range.start}>
                {diff.slice(range.start, range.end).map((line, offset) => {
                  const i = range.start + offset;
                  const block = blockOf.get(i);
                  const inCurrent = currentBlock !== undefined && i >= currentBlock.start && i < currentBlock.end;
                  return (
                    <tr
                      key={i}
                      className={`diff-${line.kind}${inCurrent ? " diff-current" : ""}`}
                      data-kind={line.kind}
                      {...(block !== undefined ? { "data-change": block, tabIndex: -1 } : {})}
                    >
                      <td className="ln">{line.oldLine ?? ""}</td>
                      <td className="ln">{line.newLine ?? ""}</td>
                      <td className="code">
                        <span aria-hidden="true">{MARK[line.kind]} </span>
                        {line.kind !== "same" && <span className="sr-only">{line.kind}: </span>}
                        {line.text}
                      </td>
                    </tr>
                  );
                })}
              </Fragment>
            ),
          )}
        </tbody>
      </table>
    </>
  );
}

/** "lines 12–51" of the newer version (the older one's numbers when the range has none there). */
function lineSpan(diff: DiffLine[], start: number, end: number): string {
  const first = diff[start].newLine ?? diff[start].oldLine;
  const last = diff[end - 1].newLine ?? diff[end - 1].oldLine;
  return first === last ? `line ${first}` : `lines ${first}–${last}`;
}
