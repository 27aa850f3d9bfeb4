"""Test support: the API calls a scenario makes to set up and check (standard library only)."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable

SERVER = os.environ.get("BATON_SERVER", "")


def api(method: str, path: str, body: Any = None) -> Any:
    request = urllib.request.Request(
        f"{SERVER}/api{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {path}: {error.code} {error.read().decode()}") from None
    return json.loads(raw) if raw else None


def until(check: Callable[[], Any], what: str, deadline_s: float = 60) -> Any:
    """Polls ``check`` until it answers something truthy (a hang guard, not a timing assertion)."""
    end = time.monotonic() + deadline_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def approval(name: str) -> dict:
    return {
        "name": name,
        "input_schema": {"type": "object", "properties": {"amount": {"type": "integer"}}, "required": ["amount"]},
        "tasks": [{
            "id": "approve",
            "action": {"type": "external", "input": {"amount": "$: input.amount"}, "result_schema": {"type": "object"}},
            "raises": {"rejected": {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}},
        }],
    }


def start_many(name: str, amounts: list, key: str | None = None) -> list:
    """Deploys ``name`` and starts one instance per amount, each parked on its external task."""
    api("PUT", "/definitions", approval(name))
    ids = []
    for amount in amounts:
        body: dict = {"process": name, "input": {"amount": amount}}
        if key is not None:
            body["key"] = key
        ids.append(api("POST", "/instances", body)["id"])
    for id in ids:
        until(lambda id=id: api("GET", f"/instances/{id}/detail").get("phase") == "external", f"{id} parked")
    return ids


def settled(id: str) -> dict:
    return until(lambda: (lambda i: i if i["status"] not in ("running", "pausing", "cancelling") else None)(
        api("GET", f"/instances/{id}")), f"{id} settled")


class Observed:
    """A transport that counts calls per endpoint, records their bodies, and can hold them."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.bodies: dict[str, list] = {}
        self._cond = threading.Condition()
        self._open = threading.Event()
        self._open.set()

    def __call__(self, path: str, body: dict, send: Callable[[], Any]) -> Any:
        name = path.removeprefix("/external-tasks/")
        self._open.wait()
        answer = send()
        with self._cond:
            self.counts[name] = self.counts.get(name, 0) + 1
            self.bodies.setdefault(name, []).append(body)
            self._cond.notify_all()
        return answer

    def count(self, name: str) -> int:
        with self._cond:
            return self.counts.get(name, 0)

    def reached(self, name: str, n: int) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: self.counts.get(name, 0) >= n, 60):
                raise AssertionError(f"{name} was not answered {n} times")

    def hold(self) -> None:
        self._open.clear()

    def release(self) -> None:
        self._open.set()
