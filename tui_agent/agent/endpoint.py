"""Provides `choose_endpoint`: which model server a run talks to, from settings and the environment.

Precedence is the settings' own (flags > environment > config file); an API key alone means OpenAI's
own endpoint (`key_alone_notice` says so, as the offline model's notice says the offline model answers); with
no endpoint at all, or with `--offline`, the built-in offline model is used. With no
model named, OpenAI's endpoint gets `gpt-4o-mini`; any other endpoint is asked which models it serves
while the engine is built (`model_choice.discover_model`), so the model is left empty here.
`cleartext_warning` says when requests (and the API key with them) would cross a network unencrypted.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit

OPENAI_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"
ANTHROPIC_URL = "https://api.anthropic.com/v1"
ANTHROPIC_DEFAULT_MODEL = "claude-sonnet-4-6"
OFFLINE_MODEL = "offline"
NO_ENDPOINT = "No endpoint configured"
"""How the notices saying who answers a run with no endpoint set begin (the app makes them the conversation's first
line)."""
OFFLINE_NOTICE = (
    f"{NO_ENDPOINT}: using the built-in offline model (set OPENAI_BASE_URL or --base-url; "
    "OPENAI_API_KEY alone means OpenAI)."
)
"""Said when the offline model answers (on OpenAI's protocol)."""
ANTHROPIC_OFFLINE_NOTICE = (
    f"{NO_ENDPOINT}: using the built-in offline model (set --base-url; ANTHROPIC_API_KEY alone means Anthropic)."
)
"""Said when the offline model answers on Anthropic's protocol: its own variables, not OpenAI's."""
OFFLINE_LABEL = "offline model"
LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost", "ip6-loopback"})


@dataclass(frozen=True)
class EndpointChoice:
    """Where requests go. `base_url` None means: start the offline model."""

    base_url: str | None
    model: str
    """The model to ask for; "" when none was named and the server is to be asked (see the docstring)."""
    api_key: str | None = field(default=None, repr=False)
    api_key_env: str = "OPENAI_API_KEY"
    key_alone: bool = False
    """OpenAI's endpoint was chosen because only an API key was set (no endpoint, no `--offline`)."""

    @property
    def offline(self) -> bool:
        return self.base_url is None

    @property
    def label(self) -> str:
        """What the status bar shows: "offline model" or the endpoint's host."""
        if self.base_url is None:
            return OFFLINE_LABEL
        parts = urlsplit(self.base_url)
        return parts.hostname or self.base_url


class EndpointSettings(Protocol):
    """The settings the choice reads: `config.Settings`, or the first frame's before validation."""

    @property
    def base_url(self) -> str | None: ...
    @property
    def model(self) -> str | None: ...
    @property
    def offline(self) -> bool: ...
    @property
    def api_key_env(self) -> str: ...
    @property
    def provider(self) -> str: ...


def choose_endpoint(settings: EndpointSettings, environ: Mapping[str, str] | None = None) -> EndpointChoice:
    """Decide the endpoint, model and key for this run."""
    environ = os.environ if environ is None else environ
    key = environ.get(settings.api_key_env) or None
    if settings.offline:
        return EndpointChoice(None, settings.model or OFFLINE_MODEL)
    on_anthropic = settings.provider == "anthropic"
    vendor, default_model = (
        (ANTHROPIC_URL, ANTHROPIC_DEFAULT_MODEL) if on_anthropic else (OPENAI_URL, OPENAI_DEFAULT_MODEL)
    )
    base_url = settings.base_url or (vendor if key else None)
    if base_url is None:
        return EndpointChoice(None, settings.model or OFFLINE_MODEL)
    base_url = base_url.rstrip("/")
    model = settings.model or (default_model if base_url == vendor else "")
    return EndpointChoice(base_url, model, key, settings.api_key_env, key_alone=not settings.base_url)


def key_alone_notice(choice: EndpointChoice) -> str | None:
    """What to say when a run goes to OpenAI only because an API key is set (someone who meant to try the offline
    model finds out before paying for a request); None otherwise."""
    if not choice.key_alone:
        return None
    return (
        f"{NO_ENDPOINT}, but {choice.api_key_env} is set: using OpenAI ({choice.base_url}, model {choice.model}). "
        "Run with --offline for the built-in offline model."
    )


def cleartext_warning(base_url: str | None) -> str | None:
    """A warning when `base_url` is plain http:// to a host other than this machine (None otherwise, and for
    the offline model): the API key and the whole conversation would travel unencrypted."""
    if base_url is None:
        return None
    try:
        parts = urlsplit(base_url)
        host = parts.hostname or ""
    except ValueError:  # not a URL the client could use either; it reports that itself
        return None
    if parts.scheme.lower() != "http" or _is_loopback(host):
        return None
    return (
        f"The endpoint {parts.scheme}://{parts.netloc.rpartition('@')[2]} is plain http to another machine: "
        "the API key and the conversation travel unencrypted. Use https:// unless the network is yours."
    )


def _is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False
