"""The public types of baton_worker: a claimed task, an error outcome, events, the stop reasons."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Optional, TypeVar

Input = TypeVar("Input")

StopReason = Literal["lost", "cancelled", "shutdown"]

_STOP_MESSAGES = {
    "lost": "the claim was lost: another worker may hold the task now",
    "cancelled": "the instance no longer wants this task",
    "shutdown": "the worker is shutting down",
}


class TaskStopped(Exception):
    """Why a handler should stop: ``reason`` is ``lost``, ``cancelled`` or ``shutdown``."""

    def __init__(self, reason: StopReason):
        super().__init__(_STOP_MESSAGES[reason])
        self.reason: StopReason = reason


@dataclass(frozen=True)
class ExternalTask(Generic[Input]):
    """A claimed external task, as ``POST /external-tasks/claim`` returns it (docs/api.md)."""

    token: str
    process: str
    version: int
    task: str
    external_input: Input
    result_schema: dict
    raises: dict
    waiting_since: str
    deadline: Optional[str]
    claimed_by: str
    claim_expires: str
    instance_id: Optional[str] = None
    """The instance waiting on this task."""
    root_id: Optional[str] = None
    """The root of its tree."""
    key: Optional[str] = None
    """The business key of the tree (its root's ``key``); None when none was given."""
    task_epoch: Optional[int] = None
    """The visit: ``f"{instance_id}:{task_epoch}"`` is the same for every claim and retry of it."""
    attempt: Optional[int] = None
    """1, plus the on_error retries scheduled in this visit."""
    traceparent: Optional[str] = None
    """The W3C trace context of the waiting instance while the server traces (docs/tracing.md); else None."""
    extra: dict = field(default_factory=dict)
    """Fields of the claimed item this SDK does not know (a newer server's additions)."""

    @property
    def idempotency_key(self) -> Optional[str]:
        """``<instance_id>:<task_epoch>``: stable across claims and retries of one visit."""
        if self.instance_id is None or self.task_epoch is None:
            return None
        return f"{self.instance_id}:{self.task_epoch}"

    @staticmethod
    def from_json(item: dict) -> "ExternalTask[Any]":
        known = {name for name in ExternalTask.__dataclass_fields__ if name != "extra"}
        return ExternalTask(
            **{name: item.get(name) for name in known},
            extra={name: value for name, value in item.items() if name not in known},
        )


class Raised(Exception):
    """An error outcome for one of the task's declared ``raises`` codes.

    Return it from the handler, or raise it: either way the task is resolved with
    ``{"error": {"code", "message"?, "data"?}}`` and routed through the task's on_error rules.
    """

    def __init__(self, code: str, message: Optional[str] = None, data: Any = None):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.data = data

    def outcome(self) -> dict:
        error: dict = {"code": self.code}
        if self.message is not None:
            error["message"] = self.message
        if self.data is not None:
            error["data"] = self.data
        return {"error": error}


EventType = Literal["claimed", "resolved", "raised", "released", "lost", "cancelled", "warning"]


@dataclass(frozen=True)
class WorkerEvent:
    """What happened to one task (``task`` set), or a ``warning`` about the worker's own calls."""

    type: EventType
    task: Optional[ExternalTask[Any]] = None
    reason: Optional[str] = None
    """Why a task was released or lost; the text of a warning."""
    code: Optional[str] = None
    """The code of a ``raised`` outcome."""
    error: Optional[BaseException] = None
