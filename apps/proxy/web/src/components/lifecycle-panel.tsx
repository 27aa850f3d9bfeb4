import { useEffect, useRef, useState } from "react";
import { callRaw } from "../api.js";
import { type LifecycleVerb, lifecycleVerbs, type Permissions } from "../permissions.js";
import { ErrorBox } from "./error-box.js";
import { Link } from "./link.js";
import { ResetForm } from "./reset-form.js";
import { UpgradeForm } from "./upgrade-form.js";

type StopVerb = Exclude<LifecycleVerb, "upgrade" | "reset">;

const ACTION = {
  pause: "pauseInstance",
  resume: "resumeInstance",
  cancel: "cancelInstance",
  retry: "retryInstance",
} as const;
const LABEL: Record<StopVerb, string> = { pause: "Pause", resume: "Resume", cancel: "Cancel", retry: "Retry" };

function describe(
  verb: StopVerb,
  status: number,
  body: { outcome?: string; status?: string; instances?: number } | undefined,
): string {
  if (status === 204) return `${LABEL[verb]}: nothing to do (already ${verb === "resume" ? "advancing" : "stopped"}).`;
  const count = body?.instances ?? 0;
  const what = `${count} instance${count === 1 ? "" : "s"}`;
  if (status === 202)
    return `${LABEL[verb]}: ${body?.outcome ?? "accepted"}; a task in flight is still draining (${what}, status ${body?.status}).`;
  return `${LABEL[verb]}: ${body?.outcome ?? "done"} (${what}, status now ${body?.status}).`;
}

/** Pause, resume, cancel, retry, reset and upgrade: only those the status and permissions allow. */
export function LifecyclePanel(props: {
  id: string;
  /** The tree's root: the only id the lifecycle verbs accept. */
  rootId: string;
  process: string;
  version: number;
  /** The task the root sits on (the upgrade check flags blockers that concern it). */
  task: string;
  status: string;
  isRoot: boolean;
  /**
   * Whether retry may need `force`: the failed task is only_once, or it spawns children (a
   * descendant's only_once task may be what failed). Unknown (definition not loaded) offers it.
   */
  offerForce?: boolean;
  permissions: Permissions;
  onChanged: () => void;
  /** How many direct children have yet to settle: a `failing` root can be retried once they have. */
  unsettledChildren?: number;
}) {
  const verbs = lifecycleVerbs({ status: props.status, isRoot: props.isRoot }, props.permissions);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [force, setForce] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState(false);
  // Where focus goes when a confirmation closes: the answer after "Yes", the Cancel button after
  // "Keep it"; never <body>, which sends a keyboard user back to the top of the page.
  const [focusTo, setFocusTo] = useState<"result" | "cancel" | null>(null);
  const resultRef = useRef<HTMLDivElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const keepRef = useRef<HTMLButtonElement>(null);
  // The confirmation replaces the focused Cancel button: the safe choice takes focus.
  useEffect(() => {
    if (confirmCancel) keepRef.current?.focus();
  }, [confirmCancel]);
  useEffect(() => {
    if (focusTo === "result" && !busy) resultRef.current?.focus();
    if (focusTo === "cancel") cancelRef.current?.focus();
    if (!busy) setFocusTo(null);
  }, [focusTo, busy]);

  async function run(verb: StopVerb) {
    setBusy(true);
    setError(undefined);
    setMessage(null);
    setConfirmCancel(false);
    try {
      const params = { id: props.id };
      const answer =
        verb === "retry"
          ? await callRaw("retryInstance", { params, query: force ? { force: true } : {} })
          : await callRaw(ACTION[verb], { params });
      setMessage(describe(verb, answer.status, answer.data));
      props.onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  if (!props.isRoot) {
    return (
      <p className="muted lifecycle-child">
        Lifecycle actions act on the whole tree: open the root instance{" "}
        <Link to={{ page: "instance", id: props.rootId }} className="mono">
          {props.rootId}
        </Link>{" "}
        to pause, resume, cancel, retry, reset or upgrade it.
      </p>
    );
  }
  return (
    <section aria-labelledby="lifecycle-heading" className="lifecycle">
      <h2 id="lifecycle-heading">Actions</h2>
      {verbs.length === 0 && (
        <p className="muted">
          No action applies to a {props.status} instance{props.permissions ? " with your permissions" : ""}.
        </p>
      )}
      {props.status === "failing" && props.isRoot && (
        <p className="notice" data-testid="retry-when">
          Retry becomes possible when this tree has failed: a child failed, and the tree fails once its
          {props.unsettledChildren === undefined
            ? " other children"
            : ` ${props.unsettledChildren} other ${props.unsettledChildren === 1 ? "child that is" : "children that are"} still running`}{" "}
          settle (a waiting child settles when it is answered, times out or is cancelled). Cancel ends the whole tree
          now; it cannot be retried afterwards.
        </p>
      )}
      <div className="actions">
        {verbs.includes("pause") && (
          <button type="button" disabled={busy} onClick={() => run("pause")}>
            Pause
          </button>
        )}
        {verbs.includes("resume") && (
          <button type="button" disabled={busy} onClick={() => run("resume")}>
            Resume
          </button>
        )}
        {verbs.includes("retry") && (
          <>
            <button type="button" disabled={busy} onClick={() => run("retry")}>
              Retry
            </button>
            {props.offerForce !== false && (
              <label className="check">
                <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} />
                force (override the only_once protection)
              </label>
            )}
          </>
        )}
        {verbs.includes("cancel") &&
          (confirmCancel ? (
            <fieldset className="confirm">
              <legend className="sr-only">Confirm cancel</legend>
              Cancel the whole tree? This cannot be undone.{" "}
              <button
                type="button"
                className="danger"
                disabled={busy}
                onClick={() => {
                  setFocusTo("result");
                  run("cancel");
                }}
              >
                Yes, cancel it
              </button>{" "}
              <button
                type="button"
                ref={keepRef}
                onClick={() => {
                  setConfirmCancel(false);
                  setFocusTo("cancel");
                }}
              >
                Keep it
              </button>
            </fieldset>
          ) : (
            <button
              type="button"
              className="danger"
              ref={cancelRef}
              disabled={busy}
              onClick={() => setConfirmCancel(true)}
            >
              Cancel
            </button>
          ))}
      </div>
      <div ref={resultRef} tabIndex={-1} className="lifecycle-result">
        {message && (
          <p role="status" className="notice">
            {message}
          </p>
        )}
        <ErrorBox error={error} />
      </div>
      {verbs.includes("reset") && (
        <ResetForm
          id={props.id}
          process={props.process}
          version={props.version}
          task={props.task}
          onChanged={props.onChanged}
        />
      )}
      {verbs.includes("upgrade") && (
        <UpgradeForm
          id={props.id}
          process={props.process}
          version={props.version}
          task={props.task}
          onChanged={props.onChanged}
        />
      )}
    </section>
  );
}
