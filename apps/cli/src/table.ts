export interface Column {
  header: string;
  align?: "left" | "right";
  /** Never shortened (ids people copy, timestamps); other columns give way first. */
  keep?: boolean;
  /** Hidden when no row has a value in it. */
  optional?: boolean;
  /**
   * May be left out, lowest number first, when the table cannot fit even with every other
   * column shortened to its minimum.
   */
  dropOrder?: number;
}

export interface Cell {
  text: string;
  /** Applied after padding and truncation, so it never changes the measured width. */
  paint?: (text: string) => string;
}

const GAP = "  ";
const MIN_WIDTH = 3;

/**
 * A plain-text table no wider than `width` when that is possible: the widest shrinkable columns
 * are truncated (with "…") until it fits. Trailing spaces are trimmed from every line.
 */
export function renderTable(
  allColumns: Column[],
  allRows: (string | Cell)[][],
  width: number,
  paintHeader = (text: string) => text,
): string {
  const allCells = allRows.map((row) => allColumns.map((_, i) => toCell(row[i])));
  let shown = allColumns
    .map((_, i) => i)
    .filter((i) => !allColumns[i].optional || allCells.some((row) => row[i].text !== ""));
  const naturalWidth = (i: number) =>
    Math.max(allColumns[i].header.length, ...allCells.map((row) => row[i].text.length));
  const smallestWidth = () =>
    shown.reduce(
      (sum, i) => sum + (allColumns[i].keep ? naturalWidth(i) : Math.min(naturalWidth(i), minimumWidth(allColumns[i]))),
      0,
    ) +
    GAP.length * (shown.length - 1);
  const droppable = shown
    .filter((i) => allColumns[i].dropOrder !== undefined)
    .sort((a, b) => allColumns[a].dropOrder! - allColumns[b].dropOrder!);
  for (const i of droppable) {
    if (smallestWidth() <= width) break;
    shown = shown.filter((j) => j !== i);
  }
  const columns = shown.map((i) => allColumns[i]);
  const cells = allCells.map((row) => shown.map((i) => row[i]));
  const widths = shown.map(naturalWidth);
  fitWidths(columns, widths, width);
  const lines = [
    formatLine(
      columns.map((column) => ({ text: column.header, paint: paintHeader })),
      columns,
      widths,
    ),
    ...cells.map((row) => formatLine(row, columns, widths)),
  ];
  return lines.join("\n");
}

function minimumWidth(column: Column): number {
  return Math.max(MIN_WIDTH, Math.min(column.header.length, 8));
}

function toCell(value: string | Cell | undefined): Cell {
  if (value === undefined) return { text: "" };
  return typeof value === "string" ? { text: oneLine(value) } : { ...value, text: oneLine(value.text) };
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

function fitWidths(columns: Column[], widths: number[], width: number): void {
  const total = () => widths.reduce((sum, w) => sum + w, 0) + GAP.length * (widths.length - 1);
  let excess = total() - width;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (columns[i].keep || widths[i] <= minimumWidth(columns[i])) continue;
      if (widest === -1 || widths[i] > widths[widest]) widest = i;
    }
    if (widest === -1) return;
    widths[widest]--;
    excess--;
  }
}

function formatLine(row: Cell[], columns: Column[], widths: number[]): string {
  const parts = row.map((cell, i) => {
    const text = truncate(cell.text, widths[i]);
    const padded = columns[i].align === "right" ? text.padStart(widths[i]) : text.padEnd(widths[i]);
    if (!cell.paint) return padded;
    const trailing = padded.length - padded.trimEnd().length;
    const leading = padded.length - padded.trimStart().length;
    return padded.slice(0, leading) + cell.paint(padded.trim()) + " ".repeat(trailing);
  });
  return parts.join(GAP).trimEnd();
}

export function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return text.slice(0, width);
  return `${text.slice(0, width - 1)}…`;
}
