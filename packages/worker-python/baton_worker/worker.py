"""Worker: the claim loop, one job per claimed task, graceful stop (docs/worker.md)."""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from typing import Any, Callable, Iterable, Optional

from .calls import Calls
from .http import Api, ApiError, Call, ConnectionFailed, Transport, backoff_s, is_transient
from .job import Handler, Job
from .renewals import Renewals
from .types import ExternalTask, WorkerEvent

CLAIM_MS_DEFAULT = 30_000  # the server's default lease_ms


def _warn_to_stderr(event: WorkerEvent) -> None:
    if event.type == "warning":
        print(f"baton_worker: warning: {event.reason}", file=sys.stderr, flush=True)


def _count(name: str, value: int, allow_zero: bool = False) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < (0 if allow_zero else 1):
        kind = "a non-negative" if allow_zero else "a positive"
        raise ValueError(f"Worker: {name} must be {kind} integer, got {value!r}")
    return value


class Worker:
    """Claims external tasks and runs ``handler(task, context)`` for each on its own thread.

    The handler returns the result (any JSON value), returns or raises ``Raised`` for an error
    outcome, or raises anything else to release the task. ``run()`` blocks until the worker
    stopped; ``stop()`` (or SIGTERM/SIGINT in the main thread) stops it gracefully.
    """

    def __init__(
        self,
        server: str,
        handler: Handler,
        *,
        token: Optional[str] = None,
        process: Optional[str] = None,
        task: Optional[str] = None,
        version: Optional[int] = None,
        concurrency: int = 1,
        lease_ms: Optional[int] = None,
        worker_id: Optional[str] = None,
        wait_ms: int = 20_000,
        poll_ms: int = 1_000,
        max_poll_ms: int = 10_000,
        call_timeout_ms: int = 30_000,
        call_attempts: int = 5,
        shutdown_grace_ms: int = 30_000,
        stop_signals: Iterable[int] = (signal.SIGTERM, signal.SIGINT),
        once: bool = False,
        batch_resolves: bool = True,
        on_event: Optional[Callable[[WorkerEvent], None]] = None,
        transport: Optional[Transport] = None,
        user_agent: str = "baton_worker (python)",
    ):
        if not callable(handler):
            raise ValueError("Worker: handler must be callable")
        self._handler = handler
        self._concurrency = _count("concurrency", concurrency)
        self._wait_ms = 0 if once else _count("wait_ms", wait_ms, allow_zero=True)
        self._poll_ms = _count("poll_ms", poll_ms)
        self._max_poll_ms = max(self._poll_ms, _count("max_poll_ms", max_poll_ms))
        self._attempts = _count("call_attempts", call_attempts)
        self._grace_s = _count("shutdown_grace_ms", shutdown_grace_ms, allow_zero=True) / 1000
        self._once = once
        self._stop_signals = tuple(stop_signals)
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}"
        self._observer = on_event or _warn_to_stderr
        self._filters = {k: v for k, v in (("process", process), ("task", task), ("version", version)) if v is not None}
        api = Api(server, token, user_agent, transport)
        self._calls = Calls(api, self.worker_id, lease_ms, _count("call_timeout_ms", call_timeout_ms), batch_resolves)
        self._retry = {"attempts": self._attempts, "base_ms": self._poll_ms, "cap_ms": self._max_poll_ms}
        self._lease_ms = lease_ms if lease_ms is not None else CLAIM_MS_DEFAULT
        self._lock = threading.Condition()
        self._jobs: dict[str, Job] = {}
        self._stopping = threading.Event()
        self._claim_call: Optional[Call] = None
        self._finished = threading.Event()
        self._started = False

    @property
    def active(self) -> int:
        """Tasks being handled now."""
        with self._lock:
            return len(self._jobs)

    def _emit(self, event: WorkerEvent) -> None:
        # An observer that raises must not take a task's outcome (or the worker) down with it.
        try:
            self._observer(event)
        except Exception:  # noqa: BLE001
            pass

    def _live(self) -> dict:
        with self._lock:
            return dict(self._jobs)

    def _settled(self, job: Job) -> None:
        with self._lock:
            self._jobs.pop(job.task.token, None)
            self._lock.notify_all()

    def _sleep(self, seconds: float) -> None:
        self._stopping.wait(seconds)

    def stop(self) -> None:
        """Stops claiming; running handlers get the grace period, then their tasks are released."""
        self._begin_stop()
        if self._started:
            self._finished.wait()

    def _begin_stop(self) -> None:
        self._stopping.set()
        call = self._claim_call
        if call is not None:
            call.abort()
        with self._lock:
            self._lock.notify_all()

    def run(self) -> None:
        """Claims and handles tasks until stopped; raises when the server refuses the worker for good."""
        self._started = True
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for number in self._stop_signals:
                previous[number] = signal.signal(number, lambda *_: self._begin_stop())
        renewals = Renewals(self._calls, self._live, self._lease_ms, self._poll_ms,
                            lambda message, error: self._emit(WorkerEvent("warning", reason=message, error=error)))
        failure: Optional[BaseException] = None
        try:
            try:
                self._claim_loop(renewals)
                if self._once:  # what was claimed is handled to the end, without a grace period
                    for job in list(self._live().values()):
                        job.done.wait()
            except BaseException as error:
                failure = error
                self._stopping.set()
            self._drain()
        finally:
            renewals.stop()
            for number, handler in previous.items():
                signal.signal(number, handler)
            self._finished.set()
        if failure is not None:
            raise failure

    def _start(self, task: ExternalTask[Any], sent_at: float, renewals: Renewals) -> None:
        self._emit(WorkerEvent("claimed", task))
        job = Job(task, self._calls, self._handler, self.worker_id, self._retry, self._emit, self._settled)
        with self._lock:
            self._jobs[task.token] = job
        renewals.track(task.token, sent_at)
        job.start()

    def _claim_loop(self, renewals: Renewals) -> None:
        empty = 0
        failures = 0
        while not self._stopping.is_set():
            with self._lock:
                free = self._concurrency - len(self._jobs)
                if free <= 0:
                    self._lock.wait(self._max_poll_ms / 1000)
                    continue
            asked = time.monotonic()
            call = Call()
            self._claim_call = call
            if self._stopping.is_set():
                return
            try:
                answer = self._calls.claim(free, self._filters, self._wait_ms, call)
            except (ApiError, ConnectionFailed) as error:
                if self._stopping.is_set():
                    return
                failures += 1
                if not is_transient(error) or (self._once and failures >= self._attempts):
                    raise
                if failures == 1:  # once per streak: a server down for an hour is one warning
                    self._emit(WorkerEvent("warning", reason=f"claiming failed ({error}); retrying", error=error))
                self._sleep(backoff_s(failures, self._poll_ms, self._max_poll_ms))
                continue
            finally:
                self._claim_call = None
            failures = 0
            renewals.set_renew_before(answer.renew_before_ms)
            if self._stopping.is_set():
                # Claimed while stopping: give them back at once.
                for task in answer.items:
                    try:
                        self._calls.release(task.token)
                    except (ApiError, ConnectionFailed):
                        pass
                return
            for task in answer.items:
                self._start(task, asked, renewals)
            renewals.schedule()
            if self._once:
                return
            if answer.items:
                empty = 0
                continue
            # A long-poll that really waited needs no pause; a fast empty answer (a poll) backs off.
            if answer.waited and time.monotonic() - asked >= self._wait_ms / 2000:
                continue
            empty += 1
            self._sleep(min(self._max_poll_ms, self._poll_ms * 2 ** min(empty - 1, 10)) / 1000)

    def _drain(self) -> None:
        """Waits for handlers up to the grace period, then releases the tasks of those still running."""
        deadline = time.monotonic() + self._grace_s
        for job in list(self._live().values()):
            job.done.wait(max(0.0, deadline - time.monotonic()))
        for job in list(self._live().values()):
            job.stop("shutdown")
            job.abandon()
