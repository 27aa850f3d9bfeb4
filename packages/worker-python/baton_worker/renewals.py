"""The renew loop: one thread renews every running claim in one call (docs/worker.md "Renewal")."""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional

from .calls import Calls
from .http import ApiError, ConnectionFailed, backoff_s

RENEW_BATCH = 1000  # the renew body's maxItems


class Renewals:
    def __init__(self, calls: Calls, live: Callable[[], dict], lease_ms: int, base_ms: int,
                 warn: Callable[[str, BaseException], None]):
        self._calls = calls
        self._live = live  # token -> Job, a snapshot taken under the worker's lock
        self._lease_s = lease_ms / 1000
        self._base_ms = base_ms
        self._warn = warn
        self._renew_before_ms = lease_ms // 3
        self._failures = 0
        # When each claim was last confirmed: when its claim or last successful renew was sent.
        self._confirmed_at: dict[str, float] = {}
        self._cond = threading.Condition()
        self._due: Optional[float] = None
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name="baton-renewals", daemon=True)
        self._thread.start()

    def _interval_s(self) -> float:
        return max(0.05, self._renew_before_ms / 2000)

    def track(self, token: str, sent_at: float) -> None:
        """A claim taken by a call sent at ``sent_at`` (time.monotonic())."""
        with self._cond:
            self._confirmed_at[token] = sent_at

    def set_renew_before(self, ms: int) -> None:
        self._renew_before_ms = ms

    def schedule(self) -> None:
        """Makes sure a renewal is due while claims run (call after claiming)."""
        with self._cond:
            if self._due is None and self._live():
                self._due = time.monotonic() + self._interval_s()
                self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        self._thread.join()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and (self._due is None or time.monotonic() < self._due):
                    self._cond.wait(None if self._due is None else self._due - time.monotonic())
                if self._stopped:
                    return
                self._due = None
            retry_in = self._renew()
            with self._cond:
                if self._live() and self._due is None:
                    self._due = time.monotonic() + (retry_in if retry_in is not None else self._interval_s())

    def _renew(self) -> Optional[float]:
        jobs = self._live()
        tokens = list(jobs)
        with self._cond:
            for token in [t for t in self._confirmed_at if t not in jobs]:
                del self._confirmed_at[token]
        if not tokens:
            return None
        sent = time.monotonic()
        with self._cond:
            for token in tokens:
                self._confirmed_at.setdefault(token, sent)
        retry_in: Optional[float] = None
        for start in range(0, len(tokens), RENEW_BATCH):
            batch = tokens[start:start + RENEW_BATCH]
            try:
                answer = self._calls.renew(batch)
            except (ApiError, ConnectionFailed) as error:
                self._failures += 1
                if self._failures == 1:
                    self._warn(f"renewing claims failed ({error}); retrying", error)
                retry_in = backoff_s(self._failures, int(min(self._base_ms, self._renew_before_ms / 4)),
                                     int(self._renew_before_ms / 2))
                continue
            self._renew_before_ms = answer.renew_before_ms
            self._failures = 0
            gone = set(answer.lost) | set(answer.cancelled)
            with self._cond:
                for token in batch:
                    if token not in gone:
                        self._confirmed_at[token] = sent
            for token in answer.lost:
                if token in jobs:
                    jobs[token].stop("lost")
            for token in answer.cancelled:
                if token in jobs:
                    jobs[token].stop("cancelled")
        # A claim not confirmed for a whole lease may belong to another worker by now: stop its
        # handler rather than let two workers act on one task (the server would refuse us anyway).
        now = time.monotonic()
        with self._cond:
            expired = [token for token, at in self._confirmed_at.items() if now - at >= self._lease_s]
        for token in expired:
            if token in jobs:
                jobs[token].stop("lost")
        return retry_in
