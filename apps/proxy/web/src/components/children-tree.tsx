import type { InstanceStatusView } from "@baton/actions";
import { useState } from "react";
import { call } from "../api.js";
import { type ChildRef, childRefs } from "../children.js";
import { POLL_MS, useLoad } from "../use-load.js";
import { ErrorBox } from "./error-box.js";
import { Link } from "./link.js";
import { StatusBadge } from "./status-badge.js";

/** The children an instance spawned, each expandable into its own children (loaded on demand). */
export function ChildrenTree({ childMap, depth = 0 }: { childMap: unknown; depth?: number }) {
  const refs = childRefs(childMap);
  const key = refs.map((r) => r.id).join(",");
  const views = useLoad<(InstanceStatusView | null)[]>(
    (signal) => Promise.all(refs.map((ref) => call("getInstance", { params: { id: ref.id }, signal }).catch(() => null))),
    key,
    depth === 0 ? POLL_MS : undefined,
  );
  if (refs.length === 0) return depth === 0 ? <p className="muted">No children.</p> : null;
  return (
    <ul className="tree" aria-label={depth === 0 ? "Children" : undefined}>
      {refs.map((ref, i) => (
        <ChildNode key={`${ref.task}/${ref.key}/${ref.id}`} childRef={ref} view={views.data?.[i]} depth={depth} />
      ))}
      <ErrorBox error={views.error} />
    </ul>
  );
}

function ChildNode({ childRef, view, depth }: { childRef: ChildRef; view: InstanceStatusView | null | undefined; depth: number }) {
  const [open, setOpen] = useState(false);
  const detail = useLoad((signal) => (open ? call("getInstanceDetail", { params: { id: childRef.id }, signal }) : Promise.resolve(null)), `${childRef.id}:${open}`);
  return (
    <li data-child={childRef.id}>
      <button type="button" className="toggle" aria-expanded={open} aria-label={`${open ? "Collapse" : "Expand"} ${childRef.id}`} onClick={() => setOpen(!open)}>
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
        </>
      ) : view === null ? (
        <span className="muted">(not readable)</span>
      ) : null}
      {open && detail.data && <ChildrenTree childMap={detail.data.state._children} depth={depth + 1} />}
      {open && <ErrorBox error={detail.error} />}
    </li>
  );
}
