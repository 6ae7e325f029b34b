"""Provides `check_anthropic_endpoint`: is an Anthropic Messages API endpoint reachable, is the key accepted, is
the model offered.

One cheap request, which costs no tokens: `GET /v1/models` with the key in `x-api-key` and the
`anthropic-version` header, as Anthropic's API checks both there (a missing or bad key answers 401). The key
itself is never part of a result, only the name of its variable.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from tui_agent.doctor.check import Check
from tui_agent.doctor.endpoint import UNREACHABLE, WHERE_MODEL, WHERE_URL, Client

ANTHROPIC_VERSION = "2023-06-01"


def check_anthropic_endpoint(
    url: str, model: str | None, key_env: str, environ: Mapping[str, str], timeout: float = 10.0, label: str = ""
) -> list[Check]:
    """The endpoint's checks, in order; a failure that makes the next ones moot ends the list."""
    key = environ.get(key_env) or ""
    root = url.rstrip("/").removesuffix("/v1")
    if not root.startswith(("http://", "https://")):
        return [Check("fail", "endpoint", f"{url} is not an http(s) URL", WHERE_URL)]
    client = Client({"x-api-key": key or "none", "anthropic-version": ANTHROPIC_VERSION}, timeout)
    try:
        listed = client.get(root + "/v1/models")
    except UNREACHABLE as error:
        reason = getattr(error, "reason", None) or error
        return [Check("fail", "endpoint", f"cannot reach {url}{label} ({reason})", f"start the server, or {WHERE_URL}")]
    checks = [Check("ok", "endpoint", f"{url} answers the Anthropic protocol{label}")]
    if listed.status_code in (401, 403):
        held = f"the key in ${key_env}" if key else f"no key (${key_env} is not set)"
        return [
            *checks,
            Check(
                "fail",
                "key",
                f"rejected: HTTP {listed.status_code} with {held}",
                f"put a valid Anthropic API key in ${key_env} (or name another variable with api_key_env)",
            ),
        ]
    if listed.status_code != 200:
        return [*checks, Check("fail", "key", f"GET /v1/models got HTTP {listed.status_code}", WHERE_URL)]
    sent = f"${key_env}" if key else "no key"
    checks.append(Check("ok", "key", f"accepted ({sent}; GET /v1/models answered)"))
    try:
        available = [str(item["id"]) for item in json.loads(listed.body).get("data") or [] if "id" in item]
    except (ValueError, AttributeError, TypeError):
        available = []
    if model is None:
        if not available:
            return [*checks, Check("fail", "model", "none configured and the endpoint lists none", WHERE_MODEL)]
        return [*checks, Check("ok", "model", f"{available[0]} (none configured: the first the endpoint lists)")]
    if model in available:
        return [*checks, Check("ok", "model", f"{model} is offered by the endpoint")]
    shown = ", ".join(available[:8]) + (", ..." if len(available) > 8 else "")
    return [
        *checks,
        Check("fail", "model", f"{model} is not among the endpoint's models ({shown or 'none'})", WHERE_MODEL),
    ]
