"""baton_worker: answer Baton external tasks from Python (standard library only, Python >= 3.11).

Claim with long-poll, renew on a timer, resolve or raise, release on failure and on shutdown,
batched resolves. See docs/worker.md "The Python worker".
"""

from .http import ApiError, ConnectionFailed, FieldError, Transport
from .job import Handler, TaskContext
from .types import ExternalTask, Raised, StopReason, TaskStopped, WorkerEvent
from .worker import Worker

__all__ = [
    "ApiError",
    "ConnectionFailed",
    "ExternalTask",
    "FieldError",
    "Handler",
    "Raised",
    "StopReason",
    "TaskContext",
    "TaskStopped",
    "Transport",
    "Worker",
    "WorkerEvent",
]
__version__ = "0.1.0"
