"""Provides `choose_endpoint`: which model server a run talks to, from settings and the environment.

Precedence is the settings' own (flags > environment > config file); an API key alone means OpenAI's
own endpoint; with no endpoint at all, or with `--offline`, the built-in offline model is used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit

OPENAI_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"
OFFLINE_MODEL = "offline"
OFFLINE_LABEL = "offline model"


@dataclass(frozen=True)
class EndpointChoice:
    """Where requests go. `base_url` None means: start the offline model."""

    base_url: str | None
    model: str
    api_key: str | None = field(default=None, repr=False)
    api_key_env: str = "OPENAI_API_KEY"

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


def choose_endpoint(settings: EndpointSettings, environ: Mapping[str, str] | None = None) -> EndpointChoice:
    """Decide the endpoint, model and key for this run."""
    environ = os.environ if environ is None else environ
    key = environ.get(settings.api_key_env) or None
    if settings.offline:
        return EndpointChoice(None, settings.model or OFFLINE_MODEL)
    base_url = settings.base_url or (OPENAI_URL if key else None)
    if base_url is None:
        return EndpointChoice(None, settings.model or OFFLINE_MODEL)
    return EndpointChoice(base_url.rstrip("/"), settings.model or OPENAI_DEFAULT_MODEL, key, settings.api_key_env)
