"""Provides `SamplingScreen`: an MCP server asks the session's model to answer a prompt of its own (sampling).

Nothing is sent before the user has read what would be: the server, its system prompt and messages, the token
limit (and temperature, stop sequences, the models it would prefer). "Send" (y) sends it this once; "Always for
SERVER" (s) sends this server's requests unasked for the rest of the run; "Deny" (n, Esc) refuses it, and the
server is told so. Every text is revealed: a server cannot hide characters in what the user approves.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui_agent.agent.records import SamplingRequest, Verdict, shown_messages
from tui_agent.sanitize import reveal


class SamplingScreen(ModalScreen[Verdict]):
    """Shows a sampling request; dismisses with the user's verdict."""

    DEFAULT_CSS = """
    SamplingScreen { align: center middle; }
    SamplingScreen > Vertical {
        width: 85%; max-width: 110; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    SamplingScreen #sampling-about { color: $text-muted; }
    SamplingScreen #sampling-prompt { height: auto; max-height: 24; margin: 1 0; border: round $panel; }
    SamplingScreen #sampling-buttons { height: auto; align-horizontal: center; }
    SamplingScreen #sampling-buttons Button { margin: 0 1; }
    """
    BINDINGS = [
        Binding("y", "decide('once')", "Send once", id="sampling.once"),
        Binding("s", "decide('always')", "Always for this server", id="sampling.always"),
        Binding("n,escape", "decide('deny')", "Deny", id="sampling.deny"),
    ]

    def __init__(self, request: SamplingRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        request = self.request
        server = reveal(request.server)
        with Vertical() as box:
            box.border_title = Content(f"{server} asks the model")
            yield Static(
                Content(f"MCP server {server} wants the session's model to answer this prompt (sampling)."),
                id="sampling-message",
            )
            yield Static(Content(self.about()), id="sampling-about")
            with VerticalScroll(id="sampling-prompt"):
                yield Static(Content(reveal(shown_messages(request))), id="sampling-text")
            with Horizontal(id="sampling-buttons"):
                yield Button("Send (y)", id="once", variant="success")
                yield Button(f"Always for {server} this session (s)", id="always", variant="warning")
                yield Button("Deny (n)", id="deny", variant="error")

    def about(self) -> str:
        """The request's limits: max tokens, and the temperature, stop sequences and preferred models it gives."""
        request = self.request
        said = [f"max tokens: {request.max_tokens:,}"]
        if request.temperature is not None:
            said.append(f"temperature: {request.temperature:g}")
        if request.stop:
            said.append("stop at: " + ", ".join(repr(reveal(stop)) for stop in request.stop))
        if request.model_hints:
            said.append("prefers: " + ", ".join(reveal(hint) for hint in request.model_hints) + " (advisory)")
        return " · ".join(said)

    def on_mount(self) -> None:
        self.query_one("#once", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "deny")

    def action_decide(self, verdict: str) -> None:
        self.dismiss("once" if verdict == "once" else "always" if verdict == "always" else "deny")
