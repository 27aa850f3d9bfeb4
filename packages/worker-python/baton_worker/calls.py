"""The external-task calls a worker makes: claim (long-poll with fallback), renew, release, and
resolve, batched like a group commit (docs/worker.md "Batched resolves")."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Optional

from .http import Api, ApiError, Call, FieldError
from .types import ExternalTask

RESOLVE_BATCH_MAX = 100  # the resolve-batch body's maxItems


@dataclass
class ClaimAnswer:
    items: list
    renew_before_ms: int
    waited: bool


@dataclass
class RenewAnswer:
    lost: list
    cancelled: list
    renew_before_ms: int


@dataclass
class _Pending:
    token: str
    outcome: dict
    done: threading.Event = field(default_factory=threading.Event)
    error: Optional[BaseException] = None


def _refuses_wait_ms(error: BaseException) -> bool:
    """The claim body refused ``wait_ms``: a server without long-poll."""
    if not isinstance(error, ApiError) or error.status != 400:
        return False
    return any("wait_ms" in f.path for f in error.fields) or "wait_ms" in error.message


class Calls:
    def __init__(self, api: Api, worker_id: str, lease_ms: Optional[int], call_timeout_ms: int, batch_resolves: bool):
        self._api = api
        self._worker_id = worker_id
        self._lease = {} if lease_ms is None else {"lease_ms": lease_ms}
        self._timeout_s = call_timeout_ms / 1000
        self._batch = batch_resolves
        # None until the first long-poll claim answers; False when the server refused wait_ms.
        self._long_poll: Optional[bool] = None
        # None until the first resolve-batch answers; False when the server has no such endpoint.
        self._batching: Optional[bool] = None
        self._lock = threading.Lock()
        self._queued: list[_Pending] = []
        self._flushing = False

    def claim(self, limit: int, filters: dict, wait_ms: int, call: Call) -> ClaimAnswer:
        body = {"worker_id": self._worker_id, "limit": limit, **self._lease, **filters}
        if wait_ms > 0 and self._long_poll is not False:
            try:
                answer = self._api.post("/external-tasks/claim", {**body, "wait_ms": wait_ms},
                                        self._timeout_s + wait_ms / 1000, call)
                self._long_poll = True
                return ClaimAnswer(_tasks(answer), int(answer["renew_before_ms"]), True)
            except ApiError as error:
                if not _refuses_wait_ms(error):
                    raise
                self._long_poll = False
        answer = self._api.post("/external-tasks/claim", body, self._timeout_s, call)
        return ClaimAnswer(_tasks(answer), int(answer["renew_before_ms"]), False)

    def renew(self, tokens: list) -> RenewAnswer:
        answer = self._api.post("/external-tasks/renew",
                                {"worker_id": self._worker_id, "tokens": tokens, **self._lease}, self._timeout_s)
        return RenewAnswer(list(answer["lost"]), list(answer["cancelled"]), int(answer["renew_before_ms"]))

    def release(self, token: str) -> None:
        """Ends the claim; a claim no longer held (409) needs no release."""
        try:
            self._api.post("/external-tasks/release", {"token": token}, self._timeout_s)
        except ApiError as error:
            if error.status != 409:
                raise

    def resolve(self, token: str, outcome: dict) -> None:
        """Resolves one claim, raising the ApiError a single resolve would have raised.

        With batching on, outcomes handed in while a call is in flight wait for it and then leave
        together in one resolve-batch; the thread that finds no call in flight sends them.
        """
        if not self._batch or self._batching is False:
            return self._resolve_one(token, outcome)
        pending = _Pending(token, outcome)
        with self._lock:
            self._queued.append(pending)
            lead = not self._flushing
            self._flushing = True
        if lead:
            self._flush()
        pending.done.wait()
        if pending.error is not None:
            raise pending.error

    def _resolve_one(self, token: str, outcome: dict) -> None:
        self._api.post("/external-tasks/resolve", {"token": token, **outcome}, self._timeout_s)

    def _flush(self) -> None:
        while True:
            with self._lock:
                batch = self._queued[:RESOLVE_BATCH_MAX]
                del self._queued[:RESOLVE_BATCH_MAX]
                if not batch:
                    # Under the lock: an outcome queued after this sees no flusher and leads.
                    self._flushing = False
                    return
            if self._batching is False or len(batch) == 1:
                for item in batch:
                    _settle(item, lambda item=item: self._resolve_one(item.token, item.outcome))
                continue
            try:
                answer = self._api.post("/external-tasks/resolve-batch",
                                        {"items": [{"token": i.token, **i.outcome} for i in batch]}, self._timeout_s)
            except ApiError as error:
                if self._batching is None and error.status in (404, 405):
                    # A server without the extension: one resolve per outcome from now on.
                    self._batching = False
                    with self._lock:
                        self._queued[:0] = batch
                    continue
                _fail_all(batch, error)
                continue
            except BaseException as error:  # the whole call failed: each item's job retries it
                _fail_all(batch, error)
                continue
            self._batching = True
            items = answer.get("items") or []
            for index, item in enumerate(batch):
                got = items[index] if index < len(items) else None
                if got is None:
                    item.error = RuntimeError("resolve-batch answered fewer items than it was sent")
                elif got.get("resolved") is not True:
                    code = str(got.get("code", "conflict"))
                    item.error = ApiError(_STATUS.get(code, 409), code, str(got.get("error", "refused")),
                                          [_field(f) for f in got.get("fields") or []])
                item.done.set()


_STATUS = {"invalid": 400, "not_found": 404, "conflict": 409}


def _field(f: Any) -> FieldError:
    return FieldError(str(f.get("path", "")), str(f.get("message", "")))


def _settle(item: _Pending, send) -> None:
    try:
        send()
    except BaseException as error:
        item.error = error
    item.done.set()


def _fail_all(batch: list, error: BaseException) -> None:
    for item in batch:
        item.error = error
        item.done.set()


def _tasks(answer: dict) -> list:
    return [ExternalTask.from_json(item) for item in answer.get("items") or []]
