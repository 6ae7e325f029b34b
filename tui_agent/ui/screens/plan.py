"""Provides `PlanScreen`: plan mode's plan, for the user to edit and approve before the work starts.

The reply's checklist is put in an editable box (one `- [ ] step` a line: add, remove, reword, reorder); under
it, the mode the work runs in (auto-edit by default, as Claude Code's "accept edits"; ask; auto). Ctrl+S or
"Start the work" approves: the screen dismisses with the steps left and the mode; Esc keeps planning (the
session stays in plan mode and nothing is sent).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Select, Static, TextArea

WorkMode = Literal["auto-edit", "ask", "auto"]
WORK_MODES: tuple[tuple[str, WorkMode], ...] = (
    ("then auto-edit (edits run)", "auto-edit"),
    ("then ask (everything asks)", "ask"),
    ("then auto (all runs)", "auto"),
)


class PlanApproval(NamedTuple):
    """The plan the user approved and the mode its work runs in."""

    steps: list[str]
    mode: WorkMode


def steps_in(text: str) -> list[str]:
    """The steps of the edited checklist: each non-blank line without its `- [ ]` (or `-`, `1.`) lead."""
    steps = []
    for line in text.splitlines():
        step = line.strip().removeprefix("- [ ]").removeprefix("- [x]").removeprefix("-").strip()
        head, dot, rest = step.partition(". ")
        step = rest.strip() if dot and head.isdigit() else step
        if step:
            steps.append(step)
    return steps


class PlanScreen(ModalScreen[PlanApproval | None]):
    """Shows the plan to edit; dismisses with the approval, or None to keep planning."""

    DEFAULT_CSS = """
    PlanScreen { align: center middle; }
    PlanScreen > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    PlanScreen TextArea { height: auto; min-height: 5; max-height: 20; margin: 1 0; }
    PlanScreen #plan-problem { color: $text-error; height: auto; }
    PlanScreen #plan-problem:empty { display: none; }
    PlanScreen #plan-row { height: auto; }
    PlanScreen #plan-row Select { width: 34; }
    PlanScreen #plan-row Button { margin: 0 0 0 1; }
    """
    BINDINGS = [
        Binding("ctrl+s", "approve", "Start the work", priority=True, id="plan.approve"),
        Binding("escape", "keep_planning", "Keep planning", id="plan.keep_planning"),
    ]

    def __init__(self, checklist: str) -> None:
        super().__init__()
        self.checklist = checklist

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = Content("The plan: edit it, then start the work (Ctrl+S) or keep planning (Esc)")
            yield TextArea(self.checklist, id="plan-steps", soft_wrap=True)
            yield Static("", id="plan-problem")
            with Horizontal(id="plan-row"):
                yield Select(WORK_MODES, value="auto-edit", allow_blank=False, id="plan-mode")
                yield Button("Start the work", id="approve", variant="success")
                yield Button("Keep planning", id="keep")

    def on_mount(self) -> None:
        steps = self.query_one(TextArea)
        steps.move_cursor(steps.document.end)  # at the end: a step added is a new last line
        steps.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "approve":
            self.action_approve()
        else:
            self.action_keep_planning()

    def action_approve(self) -> None:
        steps = steps_in(self.query_one(TextArea).text)
        if not steps:
            self.query_one("#plan-problem", Static).update("The plan has no steps: write at least one.")
            return
        chosen = self.query_one("#plan-mode", Select).value
        mode: WorkMode = next((mode for _, mode in WORK_MODES if mode == chosen), "ask")
        self.dismiss(PlanApproval(steps, mode))

    def action_keep_planning(self) -> None:
        self.dismiss(None)
