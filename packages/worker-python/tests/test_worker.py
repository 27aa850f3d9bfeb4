"""The Python SDK against a real, built server (PGlite, or PostgreSQL with DATABASE_URL): the
scenarios of @baton/worker's tests (packages/worker/test/worker.test.ts), one process name each.
Run by test/scenarios.test.ts, which starts the server and sets BATON_SERVER."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from baton_worker import Raised, TaskStopped, Worker, WorkerEvent  # noqa: E402
from support import SERVER, Observed, api, approval, settled, start_many, until  # noqa: E402


def worker(process: str, handler, events: list, **options) -> Worker:
    return Worker(SERVER, handler, process=process, on_event=events.append, **options)


class WorkerScenarios(unittest.TestCase):
    def test_keeps_a_claim_alive_across_renewals_and_resolves(self):
        [id] = start_many("py_long", [5])
        observed, events = Observed(), []

        def handler(task, context):
            observed.reached("renew", 4)
            self.assertFalse(context.stopped)
            return {"approved": task.external_input["amount"] < 10}

        worker("py_long", handler, events, lease_ms=1000, once=True, transport=observed).run()
        self.assertEqual([e.type for e in events], ["claimed", "resolved"])
        self.assertEqual(observed.count("release"), 0)
        self.assertEqual(settled(id)["status"], "completed")
        self.assertIn('"approved":true', json.dumps(api("GET", f"/instances/{id}/detail"), separators=(",", ":")))

    def test_exposes_the_task_identity(self):
        [id] = start_many("py_identity", [5], key="order-4711")
        seen = []

        def handler(task, context):
            seen.append(task)
            return {}

        worker("py_identity", handler, [], once=True).run()
        [task] = seen
        detail = api("GET", f"/instances/{id}/detail")
        self.assertEqual((task.instance_id, task.root_id, task.key, task.attempt), (id, id, "order-4711", 1))
        self.assertEqual(task.task_epoch, detail["task_epoch"])
        self.assertEqual(task.idempotency_key, f"{id}:{detail['task_epoch']}")
        self.assertRegex(task.traceparent or "", r"^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$",
                         "the scenario server traces, so each task carries its instance's trace context")
        self.assertEqual(task.external_input, {"amount": 5})
        self.assertEqual(task.extra, {}, "every field the server sends is a known one")

    def test_resolves_a_raised_outcome_through_the_tasks_raises(self):
        ids = start_many("py_raise", [1, 2])
        events = []

        def handler(task, context):
            error = context.raise_error("rejected", "too much", {"reason": "budget"})
            if task.external_input["amount"] == 1:
                return error
            raise error

        worker("py_raise", handler, events, once=True, concurrency=2).run()
        self.assertEqual(sorted((e.type, e.code) for e in events if e.type == "raised"),
                         [("raised", "rejected"), ("raised", "rejected")], "returned and raised alike")
        for id in ids:
            self.assertEqual(settled(id)["status"], "failed")
            self.assertEqual(settled(id)["error_code"], "rejected")

    def test_stops_the_handler_with_cancelled_when_the_instance_is_cancelled_and_releases(self):
        [id] = start_many("py_cancel", [5])
        observed, events, reasons = Observed(), [], []

        def handler(task, context):
            api("POST", f"/instances/{id}/cancel")
            context.stop_event.wait()
            reasons.append(context.reason)
            context.check()

        worker("py_cancel", handler, events, lease_ms=1000, once=True, transport=observed).run()
        self.assertEqual(reasons, ["cancelled"])
        self.assertEqual([e.type for e in events], ["claimed", "cancelled"])
        self.assertEqual(observed.count("release"), 1)
        self.assertEqual(observed.count("resolve"), 0)
        self.assertEqual(settled(id)["status"], "cancelled")

    def test_stops_the_handler_with_lost_without_answering_when_another_worker_took_the_claim(self):
        [id] = start_many("py_lost", [5])
        observed, events, reasons = Observed(), [], []
        started = threading.Event()

        def handler(task, context):
            started.set()
            context.stop_event.wait()
            reasons.append(context.reason)
            return {"too": "late"}

        w = worker("py_lost", handler, events, lease_ms=1000, once=True, transport=observed)
        runner = threading.Thread(target=w.run)
        runner.start()
        self.assertTrue(started.wait(60))
        # A network partition: the worker's calls hang while its lease lapses and a thief claims.
        observed.hold()
        stolen = until(lambda: api("POST", "/external-tasks/claim", {"worker_id": "thief", "process": "py_lost"})["items"],
                       "the lapsed claim to be taken")
        observed.release()
        runner.join(60)
        self.assertFalse(runner.is_alive())
        self.assertEqual(reasons, ["lost"])
        self.assertEqual([e.type for e in events], ["claimed", "lost"])
        self.assertEqual(observed.count("resolve"), 0, "a lost claim is someone else's")
        self.assertEqual(observed.count("release"), 0)
        api("POST", "/external-tasks/resolve", {"token": stolen[0]["token"], "result": {"by": "thief"}})
        self.assertEqual(settled(id)["status"], "completed")

    def test_long_polls_its_claims(self):
        api("PUT", "/definitions", approval("py_poll"))
        observed, events = Observed(), []
        resolved = threading.Event()

        def on_event(event: WorkerEvent):
            events.append(event)
            if event.type == "resolved":
                resolved.set()

        w = Worker(SERVER, lambda task, context: {"ok": True}, process="py_poll", wait_ms=30_000,
                   transport=observed, on_event=on_event)
        runner = threading.Thread(target=w.run)
        runner.start()
        id = api("POST", "/instances", {"process": "py_poll", "input": {"amount": 1}})["id"]
        self.assertTrue(resolved.wait(60))
        w.stop()
        runner.join(60)
        self.assertEqual(settled(id)["status"], "completed")
        self.assertTrue(all(body.get("wait_ms") == 30_000 for body in observed.bodies["claim"]),
                        "every claim asked to wait: the server took wait_ms")


def first_resolve_held(others: int, answer=None):
    """Orders a batching run without a clock: the first handler returns at once; the first single
    resolve is held until the ``others`` other handlers (which wait for it to be sent) have
    returned and queued their answers. ``answer(name)`` may answer a call itself."""
    counts: dict[str, int] = {}
    lock = threading.Condition()
    others_may_return = threading.Event()
    state = {"first": True, "returned": 0}

    def transport(path, body, send):
        name = path.removeprefix("/external-tasks/")
        with lock:
            counts[name] = counts.get(name, 0) + 1
            first_resolve = name == "resolve" and counts[name] == 1
        own = answer(name) if answer else None
        if own is not None:
            return own
        if first_resolve:
            others_may_return.set()
            with lock:
                lock.wait_for(lambda: state["returned"] >= others, 60)
            # The others returned; their answers are queued once their resolve() calls entered.
            until(lambda: worker_calls_queued(others), "the other answers to be queued")
        return send()

    queued_probe = {}

    def worker_calls_queued(n):
        calls = queued_probe.get("calls")
        return calls is not None and len(calls._queued) >= n

    def handler(answer_of):
        def run(task, context):
            with lock:
                first = state["first"]
                state["first"] = False
            if not first:
                others_may_return.wait(60)
                with lock:
                    state["returned"] += 1
                    lock.notify_all()
            return answer_of(task)
        return run

    return transport, handler, counts, queued_probe


class BatchedResolves(unittest.TestCase):
    def test_answers_ready_while_a_resolve_is_in_flight_leave_together_each_with_its_own_outcome(self):
        ids = start_many("py_batch", [1, 2, 3, 4])
        transport, handler, counts, probe = first_resolve_held(3)
        events = []
        # amount 3's answer does not match result_schema ({type: object}): refused inside the batch.
        w = worker("py_batch", handler(lambda t: "not an object" if t.external_input["amount"] == 3
                                       else {"amount": t.external_input["amount"]}),
                   events, concurrency=4, once=True, transport=transport)
        probe["calls"] = w._calls
        w.run()
        self.assertEqual(counts.get("resolve"), 1, "only the first answer went alone")
        self.assertEqual(counts.get("resolve-batch"), 1, "the three that were ready together went in one call")
        released = [e for e in events if e.type == "released"]
        self.assertEqual(len([e for e in events if e.type == "resolved"]), 3)
        self.assertEqual(len(released), 1)
        self.assertIn("result_schema", released[0].reason)
        for i, id in enumerate(ids):
            if i == 2:
                self.assertEqual(api("GET", f"/instances/{id}")["status"], "running", "the refused task waits")
            else:
                self.assertEqual(settled(id)["status"], "completed")

    def test_a_server_without_resolve_batch_gets_single_resolves_from_then_on(self):
        ids = start_many("py_no_batch", [1, 2, 3])
        not_found = (404, {"code": "not_found", "error": "no route POST /external-tasks/resolve-batch"})
        transport, handler, counts, probe = first_resolve_held(
            2, lambda name: not_found if name == "resolve-batch" else None)
        events = []
        w = worker("py_no_batch", handler(lambda t: {"amount": t.external_input["amount"]}), events,
                   concurrency=3, once=True, transport=transport)
        probe["calls"] = w._calls
        w.run()
        self.assertEqual(counts.get("resolve-batch"), 1, "asked once")
        self.assertEqual(counts.get("resolve"), 3, "then each answer alone")
        self.assertEqual(len([e for e in events if e.type == "resolved"]), 3)
        for id in ids:
            self.assertEqual(settled(id)["status"], "completed")


class ChildWorker:
    """A worker process; ``next(type)`` waits for its next event line of that type."""

    def __init__(self, **env):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(os.path.dirname(__file__), "child_worker.py")],
            env={**os.environ, "BATON_SERVER": SERVER, **env}, stdout=subprocess.PIPE, text=True)
        self.seen: list = []

    def next(self, type: str) -> dict:
        for event in self.seen:
            if event["type"] == type:
                return event
        for line in self.process.stdout:
            event = json.loads(line)
            self.seen.append(event)
            if event["type"] == type:
                return event
        raise AssertionError(f"the worker exited before {type}")

    def exited(self) -> int:
        for line in self.process.stdout:
            self.seen.append(json.loads(line))
        return self.process.wait(60)


class WorkerProcess(unittest.TestCase):
    def test_killed_mid_task_a_restarted_worker_claims_once_the_lease_lapses(self):
        [id] = start_many("py_crash", [5])
        first = ChildWorker(PROCESS="py_crash", LEASE_MS="1000", MODE="hang")
        claimed = first.next("started")
        first.process.kill()
        first.exited()
        second = ChildWorker(PROCESS="py_crash", LEASE_MS="1000", MODE="answer")
        again = second.next("resolved")
        self.assertNotEqual(again["token"], claimed["token"], "a new claim, not the dead worker's")
        self.assertEqual(settled(id)["status"], "completed")
        second.process.send_signal(signal.SIGTERM)
        self.assertEqual(second.exited(), 0)

    def test_on_sigterm_releases_a_running_task_after_the_grace_period(self):
        [id] = start_many("py_term", [5])
        # A 10-minute lease: only the release can make the task claimable again within this test.
        first = ChildWorker(PROCESS="py_term", LEASE_MS="600000", MODE="hang", GRACE_MS="100")
        first.next("started")
        first.process.send_signal(signal.SIGTERM)
        self.assertEqual(first.exited(), 0)
        self.assertEqual([e["type"] for e in first.seen], ["claimed", "started", "released", "stopped"])
        self.assertEqual(first.seen[2]["reason"], "the worker is shutting down")
        again = api("POST", "/external-tasks/claim", {"worker_id": "next", "process": "py_term"})["items"]
        self.assertEqual(len(again), 1)
        api("POST", "/external-tasks/resolve", {"token": again[0]["token"], "result": {}})
        self.assertEqual(settled(id)["status"], "completed")


if __name__ == "__main__":
    unittest.main()
