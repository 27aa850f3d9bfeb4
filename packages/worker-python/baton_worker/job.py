"""One claimed task: run the handler on its own thread, then resolve, raise or release
(docs/worker.md "Outcomes")."""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Optional

from .calls import Calls
from .http import ApiError, ConnectionFailed, with_retry
from .types import ExternalTask, Raised, StopReason, TaskStopped, WorkerEvent


class TaskContext:
    """What a handler gets beside its task: the stop signal and a way to raise."""

    def __init__(self, worker_id: str):
        self.worker_id = worker_id
        """This worker's id, as ``claimed_by`` shows it."""
        self.stop_event = threading.Event()
        """Set when the handler should stop: pass it to what waits (``stop_event.wait(timeout)``)."""
        self.reason: Optional[StopReason] = None
        """Why: ``lost`` (another worker may hold the task), ``cancelled``, ``shutdown``; None while live."""

    @property
    def stopped(self) -> bool:
        return self.stop_event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleeps up to ``seconds``; True as soon as the handler should stop."""
        return self.stop_event.wait(seconds)

    def check(self) -> None:
        """Raises TaskStopped when the handler should stop (call it between steps)."""
        if self.reason is not None:
            raise TaskStopped(self.reason)

    @staticmethod
    def raise_error(code: str, message: Optional[str] = None, data: Any = None) -> Raised:
        """An error outcome for one of the task's declared ``raises`` codes; return or raise it."""
        return Raised(code, message, data)


Handler = Callable[[ExternalTask[Any], TaskContext], Any]


class Job:
    def __init__(self, task: ExternalTask[Any], calls: Calls, handler: Handler, worker_id: str,
                 retry: dict, emit: Callable[[WorkerEvent], None], on_settled: Callable[["Job"], None]):
        self.task = task
        self.context = TaskContext(worker_id)
        self.done = threading.Event()
        self._calls = calls
        self._handler = handler
        self._retry = retry
        self._emit = emit
        self._on_settled = on_settled
        self._lock = threading.Lock()
        self._answering = False
        self._thread = threading.Thread(target=self._run, name=f"baton-task-{task.task}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, reason: StopReason) -> None:
        """Tells the handler to stop; the first reason wins."""
        with self._lock:
            if self.context.reason is not None:
                return
            self.context.reason = reason
        self.context.stop_event.set()

    def abandon(self) -> None:
        """Shutdown past the grace period: release now; whatever the handler returns later is dropped.

        A thread cannot be aborted, so the task is given back without waiting for its handler.
        """
        if self._take_answer():
            try:
                self._release("the worker is shutting down")
            finally:
                self._settle()

    def _take_answer(self) -> bool:
        """Exactly one path sends the task's outcome: the handler's thread or abandon()."""
        with self._lock:
            if self._answering:
                return False
            self._answering = True
            return True

    def _settle(self) -> None:
        self.done.set()
        self._on_settled(self)

    def _retried(self, what: str, call: Callable[[], Any]) -> Any:
        def on_retry(error: BaseException, attempt: int) -> None:
            self._emit(WorkerEvent("warning", reason=f"{what} failed (attempt {attempt}: {error}); retrying", error=error))
        return with_retry(call, self._retry["attempts"], self._retry["base_ms"], self._retry["cap_ms"], on_retry)

    def _give_back(self) -> None:
        try:
            self._retried(f"releasing {self.task.task}", lambda: self._calls.release(self.task.token))
        except (ApiError, ConnectionFailed) as failure:
            self._emit(WorkerEvent("warning", reason=f"releasing {self.task.task} failed ({failure}); its claim lapses on its own"))

    def _release(self, reason: str, error: Optional[BaseException] = None) -> None:
        self._give_back()
        self._emit(WorkerEvent("released", self.task, reason=reason, error=error))

    def _answer(self, outcome: dict, raised: Optional[str]) -> None:
        try:
            json.dumps(outcome)
        except (TypeError, ValueError) as error:
            # Checked here, not in the batch: one bad outcome must not fail the others sent with it.
            return self._release(f"the handler's answer is not JSON: {error}", error)
        attempts = 0

        def send() -> None:
            nonlocal attempts
            attempts += 1
            self._calls.resolve(self.task.token, outcome)

        try:
            self._retried(f"resolving {self.task.task}", send)
        except ApiError as error:
            if error.status == 409:
                # After a retried resolve, 409 may be our own earlier attempt that landed.
                note = " (or an earlier attempt of this resolve landed)" if attempts > 1 else ""
                self._emit(WorkerEvent("lost", self.task, reason=f"the server no longer takes an answer for this claim{note}: {error.message}"))
                return
            # 400: the result does not match result_schema, or an undeclared code: the task keeps waiting.
            return self._release(f"the server refused the answer: {error.message}", error)
        except (ConnectionFailed, RuntimeError) as error:
            return self._release(f"the answer could not be sent: {error}", error)
        if raised is None:
            self._emit(WorkerEvent("resolved", self.task))
        else:
            self._emit(WorkerEvent("raised", self.task, code=raised))

    def _run(self) -> None:
        value: Any = None
        thrown: Optional[BaseException] = None
        try:
            value = self._handler(self.task, self.context)
        except Raised as raised:
            value = raised
        except BaseException as error:  # noqa: BLE001 - a handler's failure releases its task
            thrown = error
        if not self._take_answer():
            return
        try:
            reason = self.context.reason
            if reason == "lost":
                self._emit(WorkerEvent("lost", self.task, reason=str(TaskStopped("lost"))))
            elif reason == "cancelled":
                self._give_back()
                self._emit(WorkerEvent("cancelled", self.task))
            elif reason == "shutdown":
                self._release("the worker is shutting down")
            elif thrown is not None:
                self._release(f"the handler threw: {thrown}", thrown)
            elif isinstance(value, Raised):
                self._answer(value.outcome(), value.code)
            else:
                self._answer({"result": value}, None)
        finally:
            self._settle()
