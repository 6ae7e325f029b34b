"""Provides `Redactor`: keeps API keys and other secrets out of everything the history stores.

Secrets are the values of environment variables whose names end in KEY, TOKEN, SECRET or PASSWORD
plus any the caller adds; URLs also lose their user:password part and query string.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

SECRET_NAME = re.compile(r"(^|_)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.IGNORECASE)
MIN_SECRET_LENGTH = 8
REDACTED = "[redacted]"


class Redactor:
    """Replaces known secret values with `[redacted]`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        for secret in secrets:
            self.add(secret)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Redactor:
        env = os.environ if environ is None else environ
        return cls(value for name, value in env.items() if SECRET_NAME.search(name))

    @classmethod
    def default(cls, config_file: Path | None = None) -> Redactor:
        """Secrets from the environment and from secret-looking keys of the config file."""
        redactor = cls.from_environment()
        if config_file is not None:
            for secret in _config_secrets(config_file):
                redactor.add(secret)
        return redactor

    def add(self, secret: str | None) -> None:
        """Also redact `secret` (ignored when too short to be a real key)."""
        if secret and len(secret.strip()) >= MIN_SECRET_LENGTH:
            self._secrets.add(secret.strip())

    def text(self, value: str) -> str:
        # Longest first, so a secret containing another is removed whole.
        for secret in sorted(self._secrets, key=len, reverse=True):
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def maybe(self, value: str | None) -> str | None:
        return None if value is None else self.text(value)

    def json(self, value: Any) -> Any:
        """A JSON-like value (dicts, lists, strings) with secrets redacted in every string."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.json(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json(v) for v in value]
        return value

    def endpoint(self, url: str | None) -> str | None:
        """A URL without credentials or query string (where keys hide), then redacted."""
        if url is None:
            return None
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
            netloc = f"{host}:{parts.port}" if parts.port else host
            url = urlunsplit((parts.scheme, netloc, parts.path, "", "")) if parts.scheme else url
        except ValueError:
            pass
        return self.text(url)


def _config_secrets(path: Path) -> Iterator[str]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return
    yield from _secret_values(data)
    named = data.get("api_key_env")
    if isinstance(named, str) and os.environ.get(named):
        yield os.environ[named]  # the key's variable may have any name


def _secret_values(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, str) and SECRET_NAME.search(str(key)):
                yield value
            else:
                yield from _secret_values(value)
    elif isinstance(data, list):
        for item in data:
            yield from _secret_values(item)
