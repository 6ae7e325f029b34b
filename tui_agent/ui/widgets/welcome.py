"""Provides `Welcome`: what an empty session shows in the conversation until its first message.

It says what tui-agent is, which model and endpoint answer (and how to point it at another), and the few keys
that matter, as the keys in force (a `[keys]` override shows). With the offline model it offers prompts the
offline model understands. It replaced the notices that covered the tool column at every offline launch.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static

from tui_agent.sanitize import sanitize

ENDPOINT_RECIPES = (
    ("OpenAI", "--base-url https://api.openai.com/v1 --model gpt-4o-mini  (key in OPENAI_API_KEY)"),
    ("Ollama", "--base-url http://localhost:11434/v1 --model llama3.2"),
    ("llama.cpp", "--base-url http://localhost:8080/v1"),
    ("vLLM", "--base-url http://localhost:8000/v1 --model <served model>"),
    ("LM Studio", "--base-url http://localhost:1234/v1"),
)
"""How to point tui-agent at the usual servers (the same lines as the README's recipes)."""
OFFLINE_PROMPTS = (
    "what's the weather in Paris and Tokyo?",
    "what is 12 * (3 + 4)?",
    "list the files",
    "explain streaming in markdown",
)
"""Prompts the offline model answers with a tool call or a formatted reply (see `tui_agent.offline.intents`)."""


@dataclass(frozen=True)
class KeyHint:
    """One key that matters and what it does."""

    keys: str
    does: str


class Welcome(Static):
    """The first screen of an empty session."""

    DEFAULT_CSS = """
    Welcome {
        height: auto;
        padding: 1 1;
        color: $text;
    }
    """

    def __init__(self, *, model: str, endpoint: str, offline: bool, keys: list[KeyHint], id: str | None = None) -> None:  # noqa: A002
        super().__init__(welcome_text(model=model, endpoint=endpoint, offline=offline, keys=keys), id=id)


def welcome_text(*, model: str, endpoint: str, offline: bool, keys: list[KeyHint]) -> Content:
    """The welcome as styled, sanitised content (the model and endpoint names come from config or a server)."""
    lines: list[Content] = [
        Content.styled("tui-agent", "bold $primary"),
        Content(  # one paragraph: it wraps at the log's width (two fixed lines broke mid-sentence at 80 columns)
            "Chat with a model in your terminal. Its replies stream in here; every tool call it makes appears "
            "live in a column on the right. Every session is saved: Ctrl+S opens them again."
        ),
        Content(""),
        _answering(model, endpoint, offline),
        Content(""),
        Content.styled("Point it at your model (or set base_url and model in the config file):", "bold"),
        *[Content.assemble(("  " + f"{name:<10}", "$accent"), value) for name, value in ENDPOINT_RECIPES],
        Content(""),
    ]
    if offline:
        lines.append(Content.styled("The offline model understands, for example:", "bold"))
        lines.extend(Content.assemble("  ", (f"“{prompt}”", "italic")) for prompt in OFFLINE_PROMPTS)
        lines.append(Content(""))
    lines.append(Content.styled("Keys", "bold"))
    lines.extend(Content.assemble("  ", (f"{hint.keys:<12}", "$accent"), hint.does) for hint in keys)
    return Content("\n").join(lines)


def _answering(model: str, endpoint: str, offline: bool) -> Content:
    if offline:
        return Content.assemble(
            ("Answering: ", "bold"),
            "the built-in offline model, a deterministic local model (no network, no key). ",
            "Good for trying things out; point tui-agent at a real model below.",
        )
    return Content.assemble(
        ("Answering: ", "bold"), sanitize(model) or "the endpoint's model", " at ", sanitize(endpoint)
    )
