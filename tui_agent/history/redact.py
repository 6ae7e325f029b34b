"""Provides `Redactor`: keeps API keys and other secrets out of everything the history stores.

Secrets are the values of environment variables whose names end in KEY, TOKEN, SECRET or PASSWORD
plus any the caller adds; URLs also lose their user:password part and query string. Unless the config
file says `redact_secrets = false`, any text that has the shape of a well-known credential (see
`token_shapes`) is redacted too, whoever wrote it: the model, a tool's arguments or its result.

Every string passes through here on its way to the database, so it is also where lone surrogates
(which SQLite cannot encode) become U+FFFD, whatever missed them where the text came in.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from tui_agent.file_trust import read_user_file
from tui_agent.history.token_shapes import REDACTED, redact_token_shapes
from tui_agent.sanitize import replace_surrogates

if TYPE_CHECKING:
    from tui_agent.history.attachments import Attachment

SECRET_NAME = re.compile(r"(^|_)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.IGNORECASE)
MIN_SECRET_LENGTH = 8
SWITCH = "redact_secrets"
"""The config file's key that turns redaction of token shapes off (`redact_secrets = false`)."""


class Redactor:
    """Replaces known secret values (and, when `token_shapes`, anything shaped like a token) with `[redacted]`."""

    def __init__(self, secrets: Iterable[str] = (), *, token_shapes: bool = True) -> None:
        self._secrets: set[str] = set()
        self.token_shapes = token_shapes
        for secret in secrets:
            self.add(secret)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, *, token_shapes: bool = True) -> Redactor:
        env = os.environ if environ is None else environ
        return cls((value for name, value in env.items() if SECRET_NAME.search(name)), token_shapes=token_shapes)

    @classmethod
    def default(cls, config_file: Path | None = None, *, token_shapes: bool | None = None) -> Redactor:
        """Secrets from the environment and from secret-looking keys of the config file; token shapes as
        `token_shapes` says (the resolved `redact_secrets` setting), else unless the file turns them off."""
        data = _read(config_file) if config_file is not None else {}
        if token_shapes is None:
            token_shapes = data.get(SWITCH) is not False
        redactor = cls.from_environment(token_shapes=token_shapes)
        for secret in _config_secrets(data):
            redactor.add(secret)
        return redactor

    def add(self, secret: str | None) -> None:
        """Also redact `secret` (ignored when too short to be a real key)."""
        if secret and len(secret.strip()) >= MIN_SECRET_LENGTH:
            self._secrets.add(secret.strip())

    def text(self, value: str) -> str:
        return self.shapes(self.known(value))

    def attachment(self, attachment: Attachment) -> Attachment:
        """`attachment` as history stores it: a text file's text redacted (so its hash is of that), an image as
        it is."""
        if attachment.kind == "image":
            return attachment
        text = self.text(attachment.text)
        return replace(attachment, data=text.encode("utf-8")) if text != attachment.text else attachment

    def known(self, value: str) -> str:
        """`value` with lone surrogates replaced and the known secrets redacted (the first of two passes)."""
        value = replace_surrogates(value)
        # Longest first, so a secret containing another is removed whole.
        for secret in sorted(self._secrets, key=len, reverse=True):
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def shapes(self, value: str) -> str:
        """`value` (passed through `known`) with token shapes redacted, if they are (the second pass)."""
        return redact_token_shapes(value) if self.token_shapes else value

    @property
    def secrets(self) -> frozenset[str]:
        """The known secret values."""
        return frozenset(self._secrets)

    def maybe(self, value: str | None) -> str | None:
        return None if value is None else self.text(value)

    def json(self, value: Any) -> Any:
        """A JSON-like value (dicts, lists, strings) with secrets redacted in every string."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.json(v) for k, v in value.items()}
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


def _read(path: Path) -> dict[str, Any]:
    try:  # a file that others could change is refused (RefusedFileError): its `redact_secrets = false` too
        return tomllib.loads(read_user_file(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # the settings report a bad file; redaction keeps its safe defaults


def _config_secrets(data: dict[str, Any]) -> Iterator[str]:
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
