// docs/api.md "Lists": every list endpoint takes the same five query parameters and
// answers with the same envelope; only the sort whitelist differs.

import type { JsonSchema } from "./action-spec.js";
import { bool, int, nullable, responseObject, str } from "./schema.js";

export type SortOrder = "asc" | "desc";

export interface ListSorting {
  /** The whitelisted sort keys; the first is not necessarily the default. */
  keys: readonly string[];
  defaultKey: string;
  defaultOrder: SortOrder;
}

export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;

/** The sort whitelist of each list endpoint (docs/api.md "Lists"). */
export const LIST_SORTS = {
  definitions: { keys: ["created_at", "name", "version"], defaultKey: "created_at", defaultOrder: "desc" },
  channels: { keys: ["name", "updated_at"], defaultKey: "name", defaultOrder: "asc" },
  instances: { keys: ["created_at", "updated_at"], defaultKey: "created_at", defaultOrder: "desc" },
  logs: { keys: ["created_at"], defaultKey: "created_at", defaultOrder: "desc" },
  externalTasks: { keys: ["waiting_since"], defaultKey: "waiting_since", defaultOrder: "asc" },
  schedules: { keys: ["name"], defaultKey: "name", defaultOrder: "asc" },
  subscriptions: { keys: ["name"], defaultKey: "name", defaultOrder: "asc" },
  deliveries: { keys: ["id"], defaultKey: "id", defaultOrder: "desc" },
  hooks: { keys: ["name"], defaultKey: "name", defaultOrder: "asc" },
} as const satisfies Record<string, ListSorting>;

/** The five list parameters as query-schema properties. */
export function listQueryProperties(sorting: ListSorting): Record<string, JsonSchema> {
  return {
    sort: str(
      `Sort key, one of: ${sorting.keys.join(", ")}. Default ${sorting.defaultKey}. Ties are broken by id, so pages are stable.`,
      {
        enum: [...sorting.keys],
        default: sorting.defaultKey,
      },
    ),
    order: str(
      `Sort direction. Default ${sorting.defaultOrder}. A cursor only works with the order it was issued for.`,
      {
        enum: ["asc", "desc"],
        default: sorting.defaultOrder,
      },
    ),
    limit: int(
      `Page size, at least 1. Default ${PAGE_LIMIT_DEFAULT}, cap ${PAGE_LIMIT_MAX}: a larger value is clamped to ${PAGE_LIMIT_MAX} (\`page.size\` reports the size applied).`,
      { minimum: 1, default: PAGE_LIMIT_DEFAULT },
    ),
    after: str(
      "The `page.next_cursor` of a previous page: fetches the page after it. Cursors are opaque; one from another list is a 400.",
      { minLength: 1 },
    ),
    before: str("The `page.previous_cursor` of a previous page: fetches the page before it.", { minLength: 1 }),
  };
}

/** The strict query schema of a list endpoint: its filters plus the list parameters. */
export function listQuerySchema(sorting: ListSorting, filters: Record<string, JsonSchema> = {}): JsonSchema {
  return { type: "object", properties: { ...filters, ...listQueryProperties(sorting) }, additionalProperties: false };
}

export const PAGE_SCHEMA: JsonSchema = responseObject(
  {
    size: int("The effective page size (the `limit` applied).", { minimum: 1, maximum: PAGE_LIMIT_MAX }),
    items_before: int("How many items precede this page in the same sort.", { minimum: 0 }),
    items_after: int("How many items follow this page in the same sort.", { minimum: 0 }),
    items_before_exact: bool(
      "Extension. Present, false, only when `items_before` stopped at the server's count bound (`--limit-page-count`): more items precede the page than it says.",
      { enum: [false] },
    ),
    items_after_exact: bool(
      "Extension. Present, false, only when `items_after` stopped at the server's count bound (`--limit-page-count`): more items follow the page than it says.",
      { enum: [false] },
    ),
    sort: str("The sort key applied."),
    order: str("The sort direction applied.", { enum: ["asc", "desc"] }),
    next_cursor: nullable(str("Pass as `after` to fetch the next page; null on the last page.")),
    previous_cursor: nullable(str("Pass as `before` to fetch the previous page; null on the first page.")),
  },
  ["size", "items_before", "items_after", "sort", "order", "next_cursor", "previous_cursor"],
  { description: "Where this page sits in the whole list." },
);

/** The list envelope `{items, page}` around an item schema. */
export function pageEnvelopeSchema(item: JsonSchema, title?: string): JsonSchema {
  return responseObject(
    {
      items: { type: "array", items: item, description: "The rows of this page, in the requested order." },
      page: PAGE_SCHEMA,
    },
    ["items", "page"],
    title ? { title } : {},
  );
}
