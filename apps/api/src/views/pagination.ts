import { and, count, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../storage/db.js";
import { invalid } from "../refusal.js";

export type Order = "asc" | "desc";

/**
 * A list's keyset: each sort key names the columns that order rows uniquely (the sort
 * column first, then tie-breakers) and how to read those values from a row.
 */
export interface ListSpec<Row> {
  /** Distinguishes cursors of one list from another's (a foreign cursor is a 400). */
  list: string;
  sorts: Record<string, { columns: AnyPgColumn[]; values: (row: Row) => Array<string | number> }>;
  defaultSort: string;
  defaultOrder: Order;
}

export interface ListQuery {
  sort?: string;
  order?: Order;
  limit?: number;
  after?: string;
  before?: string;
}

export interface Page<T> {
  items: T[];
  page: {
    size: number;
    items_before: number;
    items_after: number;
    /** Present (false) only when items_before stopped at the count bound: the true count is larger. */
    items_before_exact?: false;
    items_after_exact?: false;
    sort: string;
    order: Order;
    next_cursor: string | null;
    previous_cursor: string | null;
  };
}

/** One side's count: exact, or stopped at the bound. */
interface Counted {
  n: number;
  exact: boolean;
}

interface Cursor {
  l: string;
  s: string;
  o: Order;
  v: Array<string | number>;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString("base64url");
}

function decodeCursor(
  text: string,
  which: "after" | "before",
  expect: { l: string; s: string; o: Order; columns: AnyPgColumn[] },
): Cursor {
  let c: Cursor;
  try {
    c = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Cursor;
  } catch {
    throw invalid(
      `query parameter "${which}" is not a cursor of this list; pass page.next_cursor or page.previous_cursor from a previous response unchanged`,
    );
  }
  if (
    !c ||
    typeof c !== "object" ||
    !Array.isArray(c.v) ||
    c.v.length !== expect.columns.length ||
    !c.v.every((value, i) => fitsColumn(value, expect.columns[i]!))
  ) {
    throw invalid(
      `query parameter "${which}" is not a cursor of this list; pass page.next_cursor or page.previous_cursor from a previous response unchanged`,
    );
  }
  if (c.l !== expect.l)
    throw invalid(`query parameter "${which}" is a cursor of another list (${String(c.l)}), not of ${expect.l}`);
  if (c.s !== expect.s || c.o !== expect.o) {
    throw invalid(
      `query parameter "${which}" was issued for sort=${c.s}&order=${c.o}; repeat those with it, or start again without a cursor`,
    );
  }
  return c;
}

/**
 * Whether a cursor value can be compared with `column`: cursors are base64 JSON a caller can
 * forge, and a value of the wrong type or range must be refused here (400), never reach the
 * database (500). The sort columns are text, integer and bigint (epoch ms).
 */
function fitsColumn(value: unknown, column: AnyPgColumn): boolean {
  switch (column.columnType) {
    case "PgText":
      return typeof value === "string";
    case "PgInteger":
      return Number.isInteger(value) && Math.abs(value as number) <= 2_147_483_647;
    case "PgBigInt53":
      return Number.isSafeInteger(value);
    default:
      throw new Error(`paginate: no cursor check for a sort column of type ${column.columnType}`);
  }
}

/** `(a, b) > (x, y)` — PostgreSQL row comparison keeps keyset paging stable under inserts. */
function rowCompare(columns: AnyPgColumn[], op: ">" | "<", values: Array<string | number>): SQL {
  const cols = sql.join(
    columns.map((c) => sql`${c}`),
    sql`, `,
  );
  const vals = sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );
  return sql`(${cols}) ${sql.raw(op)} (${vals})`;
}

/**
 * Runs one page of a keyset-paginated list. `where` holds the list's filters; the rows come
 * back in the requested order whichever direction the cursor points.
 */
export async function paginate<Row>(
  db: Db,
  table: PgTable,
  where: SQL | undefined,
  spec: ListSpec<Row>,
  query: ListQuery,
  countBound: number,
): Promise<Page<Row>> {
  const sort = query.sort ?? spec.defaultSort;
  const sortSpec = spec.sorts[sort];
  if (!sortSpec)
    throw invalid(`query parameter "sort" must be one of: ${Object.keys(spec.sorts).join(", ")} (got "${sort}")`);
  const order: Order = query.order ?? spec.defaultOrder;
  const asked = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(asked) || asked < 1)
    throw invalid(`query parameter "limit" must be an integer of at least 1 (got ${asked})`);
  // docs/api.md "Lists": a larger limit is clamped, not refused; page.size reports the cap.
  const limit = Math.min(asked, MAX_LIMIT);
  if (query.after && query.before) throw invalid(`give either "after" or "before", not both`);

  const expect = { l: spec.list, s: sort, o: order, columns: sortSpec.columns };
  const forward = order === "asc" ? ">" : "<";
  const backward = order === "asc" ? "<" : ">";
  let bound: SQL | undefined;
  let reverse = false;
  if (query.after) bound = rowCompare(sortSpec.columns, forward, decodeCursor(query.after, "after", expect).v);
  if (query.before) {
    bound = rowCompare(sortSpec.columns, backward, decodeCursor(query.before, "before", expect).v);
    reverse = true;
  }
  const direction = (reverse ? (order === "asc" ? "desc" : "asc") : order) === "asc" ? sql`asc` : sql`desc`;
  const orderBy = sortSpec.columns.map((c) => sql`${c} ${direction}`);

  const rows = (await db
    .select()
    .from(table)
    .where(and(where, bound))
    .orderBy(...orderBy)
    .limit(limit + 1)) as Row[];
  const more = rows.length > limit;
  if (more) rows.pop();
  if (reverse) rows.reverse();

  // docs/api.md#lists "Bounded counts": each side is counted up to countBound + 1 rows, so a page
  // costs O(page + bound) index entries however long the list is; past the bound the count says
  // countBound and the page marks it inexact. No cursor means the first page: nothing precedes it.
  const countSide = async (extra: SQL | undefined): Promise<Counted> => {
    const [r] = await db.select({ n: count() }).from(
      db
        .select({ one: sql`1` })
        .from(table)
        .where(and(where, extra))
        .limit(countBound + 1)
        .as("side"),
    );
    const n = Number(r?.n ?? 0);
    return n > countBound ? { n: countBound, exact: false } : { n, exact: true };
  };
  let before: Counted = { n: 0, exact: true };
  let after: Counted = { n: 0, exact: true };
  if (rows.length > 0) {
    const first = sortSpec.values(rows[0]!);
    const last = sortSpec.values(rows[rows.length - 1]!);
    [before, after] = await Promise.all([
      query.after || query.before ? countSide(rowCompare(sortSpec.columns, backward, first)) : before,
      countSide(rowCompare(sortSpec.columns, forward, last)),
    ]);
  } else if (query.after || query.before) {
    // Paged past the end (or start): everything that matches lies on the other side.
    const all = await countSide(undefined);
    if (query.after) before = all;
    else after = all;
  }
  const itemsBefore = before.n;
  const itemsAfter = after.n;
  const cursorOf = (row: Row) => encodeCursor({ l: spec.list, s: sort, o: order, v: sortSpec.values(row) });
  return {
    items: rows,
    page: {
      size: limit,
      items_before: itemsBefore,
      items_after: itemsAfter,
      sort,
      order,
      ...(before.exact ? {} : { items_before_exact: false as const }),
      ...(after.exact ? {} : { items_after_exact: false as const }),
      next_cursor: rows.length > 0 && itemsAfter > 0 ? cursorOf(rows[rows.length - 1]!) : null,
      previous_cursor: rows.length > 0 && itemsBefore > 0 ? cursorOf(rows[0]!) : null,
    },
  };
}

/** Maps a page's rows to their API form, keeping the envelope. */
export function mapPage<Row, Item>(page: Page<Row>, map: (row: Row) => Item): Page<Item> {
  return { items: page.items.map(map), page: page.page };
}
