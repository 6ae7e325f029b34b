"""Provides `Control` and `control_tools`: the tools a team offers its speakers to steer it.

Every member of a team may call `done(reason)` to end the team's work; a router is offered only
`next_speaker(name)` (one of the members) and `done(reason)`. A call records the decision in the speaker's
`Control` and ends that speaker's turn after the tool round (`Turn.stop_after_tools`): the team, not the model,
decides what happens next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from tui_agent.tools.spec import ToolSpec, build_spec, tool, tool_options

if TYPE_CHECKING:
    from tui_agent.agent.turn import Turn

SOURCE = "team"


@dataclass
class Control:
    """What one speaker decided through the team's tools (nothing, until it calls one)."""

    done: str | None = None
    """The reason given to `done`."""
    next_speaker: str | None = None
    turn: Turn | None = None

    def _stop_turn(self) -> None:
        if self.turn is not None:
            self.turn.stop_after_tools = True


def control_tools(control: Control, members: Sequence[str] | None = None) -> list[ToolSpec]:
    """`done` for `control`'s speaker, and `next_speaker` among `members` when it is a router."""

    @tool(name="done", approval="never")
    def done(reason: str) -> str:
        """End the team's work now: the task is finished (or cannot go further).

        Args:
            reason: Why the team stops, in a few words.
        """
        control.done = reason.strip() or "done"
        control._stop_turn()
        return "The team stops here."

    specs = [_spec(done)]
    if members:
        specs.append(_spec(_next_speaker(control, list(members))))
    return specs


def _next_speaker(control: Control, members: list[str]) -> Any:
    def next_speaker(name: str) -> str:
        control.next_speaker = name
        control._stop_turn()
        return f"{name} speaks next."

    next_speaker.__doc__ = f"""Choose the team member who speaks next ({", ".join(members)}).

        Args:
            name: The member's name.
        """
    next_speaker.__annotations__["name"] = Literal[tuple(members)]  # the schema lists the members
    return tool(name="next_speaker", approval="never")(next_speaker)


def _spec(func: Any) -> ToolSpec:
    options = tool_options(func)
    assert options is not None
    return build_spec(func, options, source=SOURCE, plugin=SOURCE)
