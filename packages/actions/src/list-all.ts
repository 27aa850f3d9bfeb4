import type { BatonClient } from "./client.js";
import type { ActionRequest, ListActionName, ListItem, Page } from "./types.js";

/**
 * Every item of a list action, following `page.next_cursor` until the last page.
 * Starts where `req.query.after` points (or at the first page); `before` is ignored.
 */
export async function listAll<N extends ListActionName>(
  client: BatonClient,
  name: N,
  req?: ActionRequest<N>,
): Promise<ListItem<N>[]> {
  const base = (req ?? {}) as { query?: Record<string, unknown> };
  const { before: _ignored, ...query } = base.query ?? {};
  const items: ListItem<N>[] = [];
  const seen = new Set<string>();
  let after = query.after as string | undefined;
  for (;;) {
    const call = client.call as (name: string, req: unknown) => Promise<Page<ListItem<N>>>;
    const page = await call(name, { ...base, query: { ...query, after } });
    items.push(...page.items);
    const next = page.page.next_cursor;
    if (!next) return items;
    if (seen.has(next))
      throw new Error(`${name}: the server returned the cursor "${next}" twice; stopping to avoid an endless loop`);
    seen.add(next);
    after = next;
  }
}
