import type { PageInfo } from "@baton/actions";

export interface Cursor {
  after?: string;
  before?: string;
}

/** Keyset pagination: previous/next follow the page's cursors; counts come from the API. */
export function Pager({
  page,
  shown,
  onMove,
  label,
}: {
  page: PageInfo | undefined;
  shown: number;
  onMove: (cursor: Cursor) => void;
  label: string;
}) {
  // Nothing to page through: the empty-state sentence says so, not a disabled "0–0 of 0".
  if (!page || (shown === 0 && page.items_before === 0 && page.items_after === 0)) return null;
  const first = page.items_before + (shown ? 1 : 0);
  const last = page.items_before + shown;
  const total = page.items_before + shown + page.items_after;
  // A count past the server's bound (docs/api.md "Bounded counts") is a lower bound: "more than".
  const bounded = page.items_before_exact === false || page.items_after_exact === false;
  return (
    <nav className="pager" aria-label={label}>
      <button
        type="button"
        disabled={!page.previous_cursor}
        onClick={() => page.previous_cursor && onMove({ before: page.previous_cursor })}
      >
        ← Previous
      </button>
      <span>
        {page.items_before_exact === false ? `${shown} after the first ${page.items_before}+` : `${first}–${last}`} of{" "}
        {bounded ? `more than ${total}` : total}
      </span>
      <button
        type="button"
        disabled={!page.next_cursor}
        onClick={() => page.next_cursor && onMove({ after: page.next_cursor })}
      >
        Next →
      </button>
    </nav>
  );
}
