import type { InstanceStatusView } from "@baton/actions";
import { useId, useRef, useState } from "react";
import { call } from "../api.js";
import {
  type ChildOrder,
  type ChildRef,
  childMatches,
  childRefs,
  orderChildren,
  spliceChildren,
  storedChildRefs,
} from "../children.js";
import { isSettled, POLL_MS, useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { Link } from "./link.js";
import { StatusBadge } from "./status-badge.js";

/** Children shown (and read, one request each, every poll) per level until "Show more" is pressed. */
export const CHILDREN_PAGE = 50;

/**
 * The children an instance spawned, each expandable into its own children (loaded on demand).
 * A large fan-out (a child_list over thousands of elements) shows its first CHILDREN_PAGE and
 * a button for the next ones, instead of reading every child's status on every poll. A level
 * of two or more children can be sorted (failed first, by error code) and filtered by text;
 * both act on the children shown, whose statuses are read (docs/ui.md "Instance — #/instances/<id>").
 */
export function ChildrenTree({ childMap, depth = 0 }: { childMap: unknown; depth?: number }) {
  // Lists the API stored apart are fetched once (an object never changes; its ref names its content).
  const pending = storedChildRefs(childMap);
  const objects = useLoad<Map<string, unknown>>(async (signal) => {
    const values = await Promise.all(pending.map((ref) => call("getObject", { params: { ref }, signal })));
    return new Map(pending.map((ref, i) => [ref, values[i]]));
  }, pending.join(","));
  const resolved = pending.length === 0 ? childMap : objects.data ? spliceChildren(childMap, objects.data) : undefined;
  const all = childRefs(resolved);
  const [limit, setLimit] = useState(CHILDREN_PAGE);
  const [order, setOrder] = useState<ChildOrder>("spawn");
  const [filter, setFilter] = useState("");
  const toolsId = useId();
  const refs = all.slice(0, limit);
  const key = refs.map((r) => r.id).join(",");
  // The last answer for these refs: a child seen settled is not read again, and once every
  // shown child is settled the level stops polling (docs/ui.md "Live refresh").
  const last = useRef<{ key: string; views: (InstanceStatusView | null)[] } | null>(null);
  const [settledKey, setSettledKey] = useState<string | null>(null);
  const views = useLoad<(InstanceStatusView | null)[]>(
    (signal) =>
      Promise.all(
        refs.map((ref, i) => {
          const seen = last.current?.key === key ? last.current.views[i] : undefined;
          if (seen && isSettled(seen.status)) return Promise.resolve(seen);
          return call("getInstance", { params: { id: ref.id }, signal }).catch(() => null);
        }),
      ).then((answer) => {
        last.current = { key, views: answer };
        if (answer.every((view) => view !== null && isSettled(view.status))) setSettledKey(key);
        return answer;
      }),
    key,
    depth === 0 && settledKey !== key ? POLL_MS : undefined,
  );

  if (resolved === undefined) {
    return objects.error ? <ErrorBox error={objects.error} /> : <p className="loading">Loading children…</p>;
  }
  if (refs.length === 0) return <p className="muted">No children.</p>;
  const rows = refs.map((ref, i) => ({ ref, view: views.data?.[i] }));
  const shown = orderChildren(
    rows.filter((row) => childMatches(row, filter)),
    order,
  );
  return (
    <>
      {refs.length > 1 && (
        <fieldset className="children-tools">
          <legend className="sr-only">Sort and filter children</legend>
          <label htmlFor={`${toolsId}-order`}>Sort</label>
          <select id={`${toolsId}-order`} value={order} onChange={(e) => setOrder(e.target.value as ChildOrder)}>
            <option value="spawn">as spawned</option>
            <option value="status">by status, failed first</option>
            <option value="error">by error code</option>
          </select>
          <label htmlFor={`${toolsId}-filter`}>Filter</label>
          <input
            id={`${toolsId}-filter`}
            type="search"
            value={filter}
            placeholder="key, id, process, status, error code"
            onChange={(e) => setFilter(e.target.value)}
          />
          {filter.trim() && (
            <span role="status">
              {shown.length} of {refs.length} children shown match
            </span>
          )}
        </fieldset>
      )}
      <ul className="tree" aria-label={depth === 0 ? "Children" : undefined}>
        {shown.map(({ ref, view }) => (
          <ChildNode key={`${ref.task}/${ref.key}/${ref.id}`} childRef={ref} view={view} depth={depth} />
        ))}
        {all.length > refs.length && (
          <li>
            <button type="button" onClick={() => setLimit(limit + CHILDREN_PAGE)}>
              Show {Math.min(CHILDREN_PAGE, all.length - refs.length)} more ({refs.length} of {all.length} shown)
            </button>
          </li>
        )}
        <ErrorBox error={views.error} />
      </ul>
    </>
  );
}

function ChildNode({
  childRef,
  view,
  depth,
}: {
  childRef: ChildRef;
  view: InstanceStatusView | null | undefined;
  depth: number;
}) {
  const [open, setOpen] = useState(false);
  const detail = useLoad(
    (signal) =>
      open
        ? call("getInstanceDetail", { params: { id: childRef.id }, query: { resolve: true }, signal })
        : Promise.resolve(null),
    `${childRef.id}:${open}`,
  );
  return (
    <li data-child={childRef.id}>
      <button
        type="button"
        className="toggle"
        aria-expanded={open}
        aria-label={`${open ? "Collapse" : "Expand"} ${childRef.id}`}
        onClick={() => setOpen(!open)}
      >
        {open ? "▾" : "▸"}
      </button>
      <span className="muted">
        {childRef.task}
        {childRef.key !== null ? `[${childRef.key}]` : ""}:
      </span>{" "}
      <Link to={{ page: "instance", id: childRef.id }} className="mono">
        {childRef.id}
      </Link>{" "}
      {view ? (
        <>
          {view.process} v{view.version} <StatusBadge status={view.status} /> on {view.task}
          {view.error_code && (
            <>
              {" "}
              <code className="error-text" title={view.error_message}>
                {view.error_code}
              </code>
            </>
          )}
        </>
      ) : view === null ? (
        <span className="muted">(not readable)</span>
      ) : null}
      {open && detail.data && <ChildrenTree childMap={detail.data.state._children} depth={depth + 1} />}
      {open && <ErrorBox error={detail.error} />}
    </li>
  );
}
