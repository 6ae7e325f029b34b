"""Provides `check_endpoint`: is the endpoint reachable, is the key accepted, does the model exist.

It asks `GET /models` (reachable; the model list), then sends one tiny request (`max_tokens` 1) with the model,
since many servers list models without looking at the key. The key itself is never part of a result: only the
name of the variable holding it. Blocking (urllib: no client library needed); the TUI's status line can call
it from a worker thread.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tui_agent.doctor.check import Check

WHERE_URL = "set base_url in the config file, $OPENAI_BASE_URL or --base-url"
UNREACHABLE = (OSError, ValueError, http.client.HTTPException)
"""What urllib raises when no HTTP answer came (URLError and socket errors are OSErrors)."""
WHERE_MODEL = "set model in the config file, $TUI_AGENT_MODEL or --model"


@dataclass(frozen=True)
class Answer:
    status_code: int
    body: bytes


class Client:
    """Requests with the key's header and a timeout; an HTTP error status is an answer, not an exception."""

    def __init__(self, headers: dict[str, str], timeout: float) -> None:
        self.headers, self.timeout = headers, timeout

    def get(self, url: str) -> Answer:
        return self._send(urllib.request.Request(url, headers=self.headers))

    def post(self, url: str, json_body: dict[str, Any]) -> Answer:
        headers = {**self.headers, "Content-Type": "application/json"}
        return self._send(urllib.request.Request(url, json.dumps(json_body).encode(), headers, method="POST"))

    def _send(self, request: urllib.request.Request) -> Answer:
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # http(s) only: checked above
                return Answer(response.status, response.read())
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.read())


def check_endpoint(
    url: str, model: str | None, key_env: str, environ: Mapping[str, str], timeout: float = 10.0, label: str = ""
) -> list[Check]:
    """The endpoint's checks, in order; a failure that makes the next ones moot ends the list."""
    key = environ.get(key_env) or ""
    headers = {"Authorization": f"Bearer {key or 'none'}"}
    base = url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        return [Check("fail", "endpoint", f"{url} is not an http(s) URL", WHERE_URL)]
    client = Client(headers, timeout)
    try:
        listed = client.get(base + "/models")
    except UNREACHABLE as error:  # refused, timed out, a bad host, not speaking HTTP
        reason = getattr(error, "reason", None) or error
        return [Check("fail", "endpoint", f"cannot reach {url}{label} ({reason})", f"start the server, or {WHERE_URL}")]
    checks = [Check("ok", "endpoint", f"{url} answers{label}")]
    if listed.status_code in (401, 403):
        return [*checks, _rejected(listed.status_code, key_env, key)]
    available = _model_ids(listed)
    if model is None:
        if not available:
            return [*checks, Check("fail", "model", "none configured and the endpoint lists none", WHERE_MODEL)]
        model = available[0]
        checks.append(Check("ok", "model", f"{model} (none configured: the first the endpoint lists)"))
    else:
        checks.append(_model_check(model, available))
    return [*checks, _probe(client, base, model, key_env, key)]


def _model_ids(response: Answer) -> list[str] | None:
    """The ids `/models` listed; None when it gave no list (not every server has the route)."""
    if response.status_code != 200:
        return None
    try:
        data: Any = json.loads(response.body).get("data")
        return [str(item["id"]) for item in data if isinstance(item, dict) and "id" in item]
    except (ValueError, AttributeError, TypeError):
        return None


def _model_check(model: str, available: list[str] | None) -> Check:
    if available is None:
        return Check("warn", "model", f"{model} (the endpoint lists no models; the request below tells)")
    if model in available:
        return Check("ok", "model", f"{model} is offered by the endpoint")
    shown = ", ".join(available[:8]) + (", ..." if len(available) > 8 else "")
    return Check("fail", "model", f"{model} is not among the endpoint's models ({shown or 'none'})", WHERE_MODEL)


def _probe(client: Client, base: str, model: str, key_env: str, key: str) -> Check:
    """One request of one token: the key and the model as a real reply would use them."""
    body = {"model": model, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
    try:
        answer = client.post(base + "/chat/completions", body)
    except UNREACHABLE as error:
        return Check(
            "fail", "request", f"a one-token request failed ({type(error).__name__})", "check the server's log"
        )
    if answer.status_code in (401, 403):
        return _rejected(answer.status_code, key_env, key)
    if answer.status_code == 404:
        return Check("fail", "request", f"the endpoint answered 404 for model {model}", WHERE_MODEL)
    if answer.status_code != 200:
        return Check(
            "fail",
            "request",
            f"a one-token request got HTTP {answer.status_code}",
            "check the server's log and the endpoint's status page",
        )
    sent = f"${key_env}" if key else "no key"
    return Check("ok", "key", f"accepted ({sent}; a one-token request to {model} answered)")


def _rejected(status: int, key_env: str, key: str) -> Check:
    held = f"the key in ${key_env}" if key else f"no key (${key_env} is not set)"
    return Check(
        "fail",
        "key",
        f"rejected: HTTP {status} with {held}",
        f"put a valid API key in ${key_env} (or name another variable with api_key_env in the config file)",
    )
