import type { ActionRequest, ListActionName, ListItem, PageInfo } from "@baton/actions";
import type { ApiClient } from "./context.js";

export interface ListResult<T> {
  items: T[];
  /** The last page's info; with --all its next_cursor is null. */
  page: PageInfo;
  /** The API's response when exactly one page was fetched. */
  single?: { items: T[]; page: PageInfo };
}

const MAX_PAGE = 100;

/** One page (`limit`), or with `all` every page, following next_cursor until it is null. */
export async function listPages<N extends ListActionName>(
  api: ApiClient,
  name: N,
  request: ActionRequest<N>,
  options: { all?: boolean; limit?: number },
): Promise<ListResult<ListItem<N>>> {
  const query = { ...((request as { query?: object }).query ?? {}) } as Record<string, unknown>;
  if (options.limit !== undefined) query.limit = options.limit;
  if (options.all && options.limit === undefined) query.limit = MAX_PAGE;
  const items: ListItem<N>[] = [];
  const call = api.call as (name: N, request: unknown) => Promise<{ items: ListItem<N>[]; page: PageInfo }>;
  let response = await call(name, { ...request, query });
  items.push(...response.items);
  if (!options.all) return { items, page: response.page, single: response };
  while (response.page.next_cursor) {
    response = await call(name, { ...request, query: { ...query, after: response.page.next_cursor } });
    items.push(...response.items);
  }
  return { items, page: response.page };
}
