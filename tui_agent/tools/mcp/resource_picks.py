"""Provides `ResourcePick`, `resource_picks`, `filled_uri` and `attachments_of`: MCP servers' resources as the
@-picker offers them, and a chosen one read into attachments.

The picker lists each ready server's resources and resource templates under the server's name. A template
(`notes://{name}`) has one field per parameter, filled in a small form; `filled_uri` puts the values in (each
escaped, as RFC 6570's simple expansion does; `{+path}` keeps its slashes). The chosen resource is read from its
server and attached like a file: its text as a text file, its images as images, other binary content as a
stand-in line saying its type and size.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from tui_agent.payloads import Attachment, human_size
from tui_agent.tools.results import ToolResult

PARAMETER = re.compile(r"\{([+#./;?&]?)([^{}]+)\}")
"""A template's expression: `{name}`, `{+path}`, `{?query,page}` (operator, then comma-separated names)."""


@dataclass(frozen=True)
class ResourcePick:
    """One resource (or template) a server offers, as the picker lists it."""

    server: str
    uri: str
    """The resource's URI, or the template's (`notes://{name}`)."""
    name: str
    description: str = ""
    parameters: tuple[str, ...] = ()
    """The template's parameters, in order (empty for a resource)."""

    @property
    def label(self) -> str:
        """What the picker shows and filters on: `notes: notes://readme — What the notes are`."""
        about = f" — {self.description}" if self.description else ""
        return f"{self.server}: {self.uri}{about}"

    @property
    def is_template(self) -> bool:
        return bool(self.parameters)


def template_parameters(template: str) -> tuple[str, ...]:
    """The names a URI template's expressions use, in order, each once."""
    names: list[str] = []
    for _, variables in PARAMETER.findall(template):
        for name in variables.split(","):
            name = name.strip().rstrip("*").split(":")[0]
            if name and name not in names:
                names.append(name)
    return tuple(names)


def filled_uri(template: str, values: Mapping[str, str]) -> str:
    """`template` with its parameters given `values`: escaped, except in `{+name}` and `{#name}` (reserved
    expansion: slashes kept); a query expression (`{?a,b}`) becomes `?a=..&b=..`."""

    def expanded(match: re.Match[str]) -> str:
        operator, variables = match.group(1), match.group(2)
        names = [name.strip().rstrip("*").split(":")[0] for name in variables.split(",")]
        safe = "/:@!$&'()*+,;=" if operator in ("+", "#") else ""
        given = [(name, quote(str(values.get(name, "")), safe=safe)) for name in names if values.get(name, "") != ""]
        if operator in ("?", "&"):
            joined = "&".join(f"{name}={value}" for name, value in given)
            return f"{operator}{joined}" if joined else ""
        prefix = {"#": "#", ".": ".", "/": "/", ";": ";"}.get(operator, "")
        separator = {"": ",", "+": ",", "#": ","}.get(operator, prefix)
        return (prefix + separator.join(value for _, value in given)) if given else ""

    return PARAMETER.sub(expanded, template)


def resource_picks(server: str, resources: Iterable[Any], templates: Iterable[Any]) -> list[ResourcePick]:
    """A server's listed resources, then its templates, as picks."""
    picks = [
        ResourcePick(server, str(item.uri), item.name or str(item.uri), _first_line(item.description))
        for item in resources
    ]
    picks += [
        ResourcePick(
            server,
            str(item.uri_template),
            item.name or str(item.uri_template),
            _first_line(item.description),
            template_parameters(str(item.uri_template)),
        )
        for item in templates
    ]
    return picks


def attachments_of(uri: str, found: str | ToolResult, max_bytes: int) -> list[Attachment]:
    """What reading `uri` gave, as attachments: its text as a text file named after the URI (the stand-ins of
    content that is neither text nor image inside it; cut after `max_bytes`, as a file is), then its images."""
    text, images = (found, []) if isinstance(found, str) else (found.text, list(found.attachments))
    return ([_text_file(uri, text, max_bytes)] if text or not images else []) + images


def _text_file(name: str, text: str, max_bytes: int) -> Attachment:
    data = text.encode("utf-8", errors="replace")
    if len(data) <= max_bytes:
        return Attachment("file", name, "text/plain", data)
    kept = data[:max_bytes].decode("utf-8", errors="ignore").encode("utf-8")  # not inside a character
    return Attachment("file", name, "text/plain", kept, f"cut at {human_size(len(kept))} of {human_size(len(data))}")


def _first_line(text: str | None) -> str:
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")
