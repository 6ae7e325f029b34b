"""Provides the permission modes: what may run without a dialog, decided per call from the tool's `effect`.

- **read-only**: only tools that declare they change nothing (`effect="read"`) run; the others are refused
  with a text telling the model which mode would allow them.
- **ask** (the default): today's behaviour, each tool's approval policy.
- **auto-edit**: tools that edit files (`effect="edit"`, confined to the working directory by the tools
  themselves) run without a dialog; commands and unknown tools still ask.
- **auto**: everything runs without a dialog, and command-like tools run inside the OS sandbox
  (`ToolRunner.sandbox_commands`). Refused where no sandbox is available, unless the user passes
  `--dangerously-auto-without-sandbox`.
- **plan**: as read-only, and the model is asked to end with a plan, a checklist the user edits and approves
  (`tui_agent.agent.plan`); approving it switches to the mode the user picks and starts the work.

A config `deny` (or an agent's) always wins: the runner checks it before it asks the mode. `--allow` and
"always" answers still let a tool run unasked in ask and auto-edit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from tui_agent.tools.spec import Effect

Mode = Literal["read-only", "ask", "auto-edit", "auto", "plan"]
MODES: tuple[Mode, ...] = get_args(Mode)
CYCLE: tuple[Mode, ...] = ("ask", "auto-edit", "auto", "plan", "read-only")
"""The order Shift+Tab steps through (from ask, the next step is the one more trusting, as in Claude Code)."""
Verdict = Literal["run", "ask", "refuse"]
SandboxReady = Callable[[], "str | None"]
"""None when commands can run in the OS sandbox, else why not (`tui_agent.sandbox.support()` at the merge)."""
UNSANDBOXED_FLAG = "--dangerously-auto-without-sandbox"

_RUN_UNASKED: dict[Mode, frozenset[str]] = {
    "read-only": frozenset({"read"}),
    "ask": frozenset(),
    "auto-edit": frozenset({"edit"}),
    "auto": frozenset({"read", "edit", "command", "unknown"}),
    "plan": frozenset({"read"}),
}
"""Effects a mode runs without a dialog (on top of each tool's own approval policy)."""


def sandbox_not_built() -> str | None:
    """The stand-in until the sandbox is wired in: never ready."""
    return "the sandbox is not available in this build"


def decide(mode: Mode, effect: Effect) -> Verdict:
    """What `mode` does with a call of a tool whose effect is `effect`: run it unasked, leave it to the
    tool's approval policy ("ask"), or refuse it."""
    if mode in ("read-only", "plan") and effect != "read":
        return "refuse"
    return "run" if effect in _RUN_UNASKED[mode] else "ask"


def refusal(mode: Mode, tool: str, effect: Effect) -> str:
    """The text the model gets for a call `mode` refuses: what was refused and which mode allows it."""
    allows = "auto-edit" if effect == "edit" else "ask"
    if mode == "plan":
        return (
            f"The tool {tool} was not run: the session is in plan mode, where only tools that change nothing may "
            f"run ({tool} can {_WHAT[effect]}). Put that step in your plan instead; the work starts once the user "
            "approves it."
        )
    return (
        f"The tool {tool} was not run: the session is in {mode} mode, where only tools that change nothing "
        f"may run ({tool} can {_WHAT[effect]}). The user can switch to {allows} mode (Shift+Tab) to allow it; "
        "until then, work with the read-only tools."
    )


_WHAT: dict[str, str] = {
    "read": "only read",
    "edit": "edit files",
    "command": "run commands",
    "unknown": "change things it does not declare",
}


def next_mode(mode: Mode) -> Mode:
    """The mode after `mode` in Shift+Tab's cycle."""
    return CYCLE[(CYCLE.index(mode) + 1) % len(CYCLE)]


def parse_mode(text: str) -> Mode | None:
    """`text` as a mode name (as typed after `--mode`), None when it is none."""
    name = text.strip().lower().replace("_", "-")
    return next((mode for mode in MODES if mode == name), None)


class Permissions:
    """The session's permission mode, shared by the runner and the sub-agents' runners made from it.

    `sandbox_ready` says whether commands can be sandboxed; `unsandboxed_auto` is the user's explicit
    `--dangerously-auto-without-sandbox`.
    """

    def __init__(self, sandbox_ready: SandboxReady = sandbox_not_built, *, unsandboxed_auto: bool = False) -> None:
        self.mode: Mode = "ask"
        self.sandbox_ready = sandbox_ready
        self.unsandboxed_auto = unsandboxed_auto

    def why_not(self, mode: Mode) -> str | None:
        """Why the session cannot switch to `mode`, None when it can (only auto needs anything: the sandbox)."""
        if mode != "auto" or self.unsandboxed_auto:
            return None
        reason = self.sandbox_ready()
        if reason is None:
            return None
        return (
            f"auto mode needs the OS sandbox for commands, and {reason}; "
            f"start with {UNSANDBOXED_FLAG} to run without it"
        )

    def switch(self, mode: Mode) -> str | None:
        """Switch to `mode`; returns why not (the mode is kept) or None."""
        reason = self.why_not(mode)
        if reason is None:
            self.mode = mode
        return reason

    def cycle(self) -> tuple[Mode, str | None]:
        """Step to the next mode Shift+Tab offers, skipping one that cannot start (auto without a sandbox);
        returns the mode now and why the skipped one was skipped (None when none was)."""
        skipped: str | None = None
        candidate = next_mode(self.mode)
        while (reason := self.why_not(candidate)) is not None:
            skipped = reason
            candidate = next_mode(candidate)
        self.mode = candidate
        return candidate, skipped

    def verdict(self, effect: Effect) -> Verdict:
        return decide(self.mode, effect)


def start_mode(
    permissions: Permissions, flag: str | None, configured: Mode, *, unsandboxed: bool = False
) -> str | None:
    """Put a new run in the mode `--mode` (`flag`) or the config asks for; returns why it could not (the
    run stays in ask mode) or None."""
    permissions.unsandboxed_auto = unsandboxed
    mode = parse_mode(flag) if flag else configured
    reason = permissions.switch(mode or "ask")
    return None if reason is None else f"Not starting in {mode} mode: {reason}."
