"""A worker in its own process, for crash and SIGTERM scenarios. Env: BATON_SERVER, PROCESS,
LEASE_MS, MODE ("hang": the handler waits until told to stop; "answer": it resolves with
{"by": pid}), GRACE_MS. Prints one JSON line per event on stdout."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from baton_worker import Worker  # noqa: E402


def line(**fields):
    print(json.dumps(fields), flush=True)


def handler(task, context):
    line(type="started", token=task.token)
    if os.environ["MODE"] == "answer":
        return {"by": os.getpid()}
    context.stop_event.wait()
    context.check()


worker = Worker(
    os.environ["BATON_SERVER"],
    handler,
    process=os.environ["PROCESS"],
    lease_ms=int(os.environ["LEASE_MS"]),
    shutdown_grace_ms=int(os.environ.get("GRACE_MS", "0")),
    poll_ms=50,
    max_poll_ms=200,
    on_event=lambda event: line(type=event.type, token=event.task.token if event.task else None, reason=event.reason),
)
worker.run()
line(type="stopped")
