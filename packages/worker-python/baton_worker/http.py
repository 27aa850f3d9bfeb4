"""One JSON call to the Baton API over http.client, and what a failed call means.

Standard library only. Each call opens its own connection so that a claim that long-polls can be
aborted from another thread (``Call.abort``) without touching the other calls.
"""

from __future__ import annotations

import json
import random
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPException, HTTPSConnection
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

# A ``transport`` sees every call: (path under /api, JSON body, send) -> (status, parsed body).
# The default calls ``send()``; a wrapper may log, count, delay or answer a call itself.
Transport = Callable[[str, dict, Callable[[], "tuple[int, Any]"]], "tuple[int, Any]"]


@dataclass
class FieldError:
    path: str
    message: str


class ApiError(Exception):
    """The server answered with an error status (its ``code`` and sentence, docs/api.md "Errors")."""

    def __init__(self, status: int, code: str, message: str, fields: Optional[list[FieldError]] = None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields or []


class ConnectionFailed(Exception):
    """The call got no answer: refused, reset, timed out, or aborted."""


def is_transient(error: BaseException) -> bool:
    """Worth trying again: unreachable, timed out, overloaded (429) or failed (5xx but 501)."""
    if isinstance(error, ConnectionFailed):
        return True
    if isinstance(error, ApiError):
        return error.status == 429 or (error.status >= 500 and error.status != 501)
    return False


def backoff_s(attempt: int, base_ms: int, cap_ms: int) -> float:
    """Exponential backoff with jitter: attempt 1 waits up to ``base_ms``, doubling to ``cap_ms``."""
    ceiling = min(cap_ms, base_ms * 2 ** max(0, min(attempt - 1, 20)))
    return (ceiling / 2 + random.random() * ceiling / 2) / 1000


def with_retry(call: Callable[[], Any], attempts: int, base_ms: int, cap_ms: int,
               on_retry: Optional[Callable[[BaseException, int], None]] = None) -> Any:
    """Runs ``call`` up to ``attempts`` times while it fails transiently; raises the last error."""
    attempt = 1
    while True:
        try:
            return call()
        except (ApiError, ConnectionFailed) as error:
            if attempt >= attempts or not is_transient(error):
                raise
            if on_retry is not None:
                on_retry(error, attempt)
            time.sleep(backoff_s(attempt, base_ms, cap_ms))
            attempt += 1


@dataclass
class Call:
    """One call in flight; ``abort()`` (from any thread) ends it with ConnectionFailed."""

    connection: Optional[HTTPConnection] = None
    aborted: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def abort(self) -> None:
        with self.lock:
            self.aborted = True
            sock = self.connection.sock if self.connection is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Api:
    """POSTs JSON to ``{server}/api{path}`` with the bearer token, parsing the JSON answer."""

    def __init__(self, server: str, token: Optional[str], user_agent: str, transport: Optional[Transport] = None):
        parts = urlsplit(server)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"server must be an http(s) URL such as http://127.0.0.1:8449, got {server!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/") + "/api"
        self._headers = {"content-type": "application/json", "accept": "application/json", "user-agent": user_agent}
        if token:
            self._headers["authorization"] = f"Bearer {token}"
        self._transport = transport
        self._context = ssl.create_default_context() if self._https else None

    def post(self, path: str, body: dict, timeout_s: float, call: Optional[Call] = None) -> Any:
        """The parsed 2xx answer; ApiError for an error status; ConnectionFailed without an answer."""
        send = lambda: self._send(path, body, timeout_s, call or Call())  # noqa: E731
        status, answer = self._transport(path, body, send) if self._transport else send()
        if 200 <= status < 300:
            return answer
        payload = answer if isinstance(answer, dict) else {}
        fields = [FieldError(str(f.get("path", "")), str(f.get("message", ""))) for f in payload.get("fields") or []
                  if isinstance(f, dict)]
        raise ApiError(status, str(payload.get("code", "http")), str(payload.get("error", answer)), fields)

    def _send(self, path: str, body: dict, timeout_s: float, call: Call) -> "tuple[int, Any]":
        data = json.dumps(body, separators=(",", ":")).encode()
        if self._https:
            connection: HTTPConnection = HTTPSConnection(self._host, self._port, timeout=timeout_s, context=self._context)
        else:
            connection = HTTPConnection(self._host, self._port, timeout=timeout_s)
        with call.lock:
            if call.aborted:
                raise ConnectionFailed(f"POST {path}: aborted")
            call.connection = connection
        try:
            connection.connect()
            if call.aborted:
                raise ConnectionFailed(f"POST {path}: aborted")
            connection.request("POST", self._prefix + path, body=data, headers=self._headers)
            response = connection.getresponse()
            raw = response.read()
            status = response.status
        except (OSError, HTTPException) as error:
            reason = "aborted" if call.aborted else (str(error) or type(error).__name__)
            raise ConnectionFailed(f"POST {path}: {reason}") from error
        finally:
            connection.close()
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")[:200]
