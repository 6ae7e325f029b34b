"""Provides `ApprovalScreen`: the modal asking whether a tool may run, with its full arguments.

The name and arguments are shown through `reveal`: a bidi override or a zero-width character appears as
`⟨U+202E⟩`, so a command cannot look other than it is.

A sub-agent's call says which agent asks (the chain of them, for a delegate's delegate), in the title and
on a line of its own above the tool.

Keys: `a` or `y` allow once, `s` always this session, `d`, `n` or Esc deny. A line under the arguments
says what "always" would allow: every call of the tool, or for a command-like tool (the shell) this exact
command only.

An edit tool's call (`write_file`, `edit_file`) shows the diff it would make instead of its arguments
(`tui_agent.tools.edits.preview`, nothing written; the reason it would fail when it would), scrolling when
long, and its choices are: once, `f` always for this file, `e` always for edits, deny.

A command that will run in the OS sandbox with the network off also offers `w`: once, with the network. A
command the sandbox blocked comes back as a question of its own (`widgets/sandbox_offer.py`): `a` run it
again outside the sandbox, `w` again with the network, `d` keep the blocked result.
"""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui_agent.agent.edit_preview import EDIT_TOOLS, preview
from tui_agent.payloads import FileChange
from tui_agent.sanitize import reveal
from tui_agent.tool_call import Decision, ToolCall
from tui_agent.ui.widgets.file_changes import changes_view
from tui_agent.ui.widgets.sandbox_offer import NETWORK_ONCE, TITLE, rerun_choices, rerun_question
from tui_agent.ui.widgets.tool_panel import pretty_arguments


def shown_arguments(call: ToolCall) -> str:
    """The arguments the tool would get (parsed, without `to_user`), indented; the raw text if unparsed."""
    if call.arguments is None:
        return pretty_arguments(call.raw_arguments)

    return json.dumps(dict(call.arguments), ensure_ascii=False, indent=2)


def always_covers(update: ToolCall) -> str:
    """The sentence saying what answering "always" would allow."""
    if update.command is None:
        return f"Always: every call of {reveal(update.name)} in this session, without asking."
    if update.name == "web_fetch":
        return f"Always: pages of {reveal(update.command)} in this session; any other host asks again."
    return "Always: this exact command again in this session; any other command asks again."


def previewed(update: ToolCall) -> tuple[FileChange, ...] | str:
    """The changes an edit tool's call would make, or why it would fail (another tool's call: none)."""
    if update.name not in EDIT_TOOLS or update.arguments is None:
        return ()
    try:
        return preview(update.name, update.arguments)
    except (ValueError, OSError) as error:
        return str(error)


class ApprovalScreen(ModalScreen[Decision]):
    """Asks about one tool call; dismisses with the person's decision."""

    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
    }
    #approval-dialog {
        width: 80%;
        max-width: 100;
        height: auto;
        max-height: 80%;
        border: thick $tool-awaiting-approval;
        background: $surface;
        padding: 1 2;
    }
    #approval-arguments {
        height: auto;
        max-height: 20;
        margin: 1 0;
        background: $panel 40%;
        padding: 0 1;
    }
    #approval-dialog.-wide {
        width: 95%;
        max-width: 110;
    }
    #approval-dialog.-diff {
        width: 95%;
        max-width: 120;
        height: 90%;
        max-height: 90%;
        padding: 0 1;
    }
    #approval-buttons.-edit Button, #approval-buttons.-narrow Button {
        min-width: 0;
        margin: 0 0 0 1;
    }
    #approval-dialog.-diff #approval-arguments {
        height: 1fr;
        max-height: 100%;
    }
    #approval-blocked {
        margin-bottom: 1;
    }
    #approval-buttons {
        height: auto;
        align-horizontal: center;
    }
    #approval-buttons Button {
        margin: 0 1;
    }
    """

    BINDINGS = [
        Binding("a,y", "decide('allow_once')", "Allow once", id="decide('allow_once')"),
        Binding("s", "decide('allow_always')", "Always this session", id="decide('allow_always')"),
        Binding("f", "decide('allow_file')", "Always this file", id="decide('allow_file')"),
        Binding("e", "decide('allow_edits')", "Always edits", id="decide('allow_edits')"),
        Binding("w", "decide('allow_network')", "Once with network", id="decide('allow_network')"),
        Binding("d,n,escape", "decide('deny')", "Deny", id="decide('deny')"),
    ]

    def __init__(self, update: ToolCall, *, agent: str | None = None) -> None:
        super().__init__()
        self.update = update
        self.agent = agent
        """The sub-agent asking ("writer → researcher" through a chain); None: the session's own agent."""
        self.edit = update.name in EDIT_TOOLS
        """An edit tool's call: the diff is shown and "always" is per file or for every edit."""

    def compose(self) -> ComposeResult:
        with Vertical(id="approval-dialog") as dialog:
            dialog.border_title = Content("Allow this tool to run?")
            if self.update.blocked:
                dialog.border_title = Content(TITLE)
            elif self.agent:
                dialog.border_title = Content(f"{reveal(self.agent)} asks: allow this tool to run?")
            if self.agent:
                asking = Content.assemble("Asked by the sub-agent ", (reveal(self.agent), "bold $accent"))
                yield Static(asking, id="approval-agent")
            yield Static(Content.assemble("Tool: ", (reveal(self.update.name), "bold")), id="approval-tool")
            changes = previewed(self.update) if self.edit else ()
            dialog.set_class(bool(changes) and not isinstance(changes, str), "-diff")  # the diff takes the room
            dialog.set_class(self.update.network_off or bool(self.update.blocked), "-wide")  # more buttons
            with VerticalScroll(id="approval-arguments"):
                if changes and not isinstance(changes, str):
                    yield Static(Content("\n").join(changes_view(changes)), id="approval-diff")
                else:
                    yield Static(Content(reveal(shown_arguments(self.update)) or "(no arguments)"))
            if isinstance(changes, str):
                yield Static(Content.styled(f"This call would fail: {reveal(changes)}", "$text-error"))
            if self.update.blocked:
                yield from rerun_question(self.update)
                return
            if self.edit:
                yield from self._edit_buttons()
                return
            if self.update.network_off:
                yield from self._network_buttons()
                return
            yield Static(Content(always_covers(self.update)), id="approval-scope")
            with Horizontal(id="approval-buttons"):
                yield Button(Content("Allow once (a)"), id="allow_once", variant="success")
                yield Button(Content("Always this session (s)"), id="allow_always", variant="primary")
                yield Button(Content("Deny (d)"), id="deny", variant="error")

    def _network_buttons(self) -> ComposeResult:
        """A command bound for the sandbox with the network off: a fourth choice, once with the network."""
        yield Static(Content(f"{always_covers(self.update)} {NETWORK_ONCE}"), id="approval-scope")
        with Horizontal(id="approval-buttons", classes="-narrow"):  # four choices: narrow buttons fit 80 columns
            yield Button(Content("Once (a)"), id="allow_once", variant="success")
            yield Button(Content("Always (s)"), id="allow_always", variant="primary")
            yield Button(Content("Once with network (w)"), id="allow_network", variant="warning")
            yield Button(Content("Deny (d)"), id="deny", variant="error")

    def _edit_buttons(self) -> ComposeResult:
        with Horizontal(id="approval-buttons", classes="-edit"):  # four choices: narrow buttons fit 80 columns
            yield Button(Content("Once (a)"), id="allow_once", variant="success")
            if self.update.name != "apply_patch":  # one file: a patch may name several
                yield Button(Content("Always this file (f)"), id="allow_file", variant="primary")
            yield Button(Content("Always edits (e)"), id="allow_edits", variant="warning")
            yield Button(Content("Deny (d)"), id="deny", variant="error")

    def on_mount(self) -> None:
        # Enter by habit must not take a blocked command out of the sandbox: there it keeps the result
        self.query_one("#deny" if self.update.blocked else "#allow_once", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "deny")

    def action_decide(self, decision: str) -> None:
        chosen = Decision(decision)
        offered = {Decision.ALLOW_ONCE, Decision.DENY} | (EDIT_CHOICES if self.edit else {Decision.ALLOW_ALWAYS})
        if self.update.network_off:
            offered.add(Decision.ALLOW_NETWORK)
        if self.update.blocked:
            offered = set(rerun_choices(self.update))
        if chosen == Decision.ALLOW_FILE and self.update.name == "apply_patch" or chosen not in offered:
            return  # the key of a choice this dialog does not offer
        self.dismiss(chosen)


EDIT_CHOICES = frozenset({Decision.ALLOW_FILE, Decision.ALLOW_EDITS})
