"""Provides plan mode's words: what the model is told in plan mode, the plan's steps read from its reply, and the
prompt that starts the work once the user approves the plan.

In plan mode (`tui_agent.tools.modes`: only tools that change nothing run) every request carries
`PLAN_INSTRUCTIONS`, added to the system prompt (strict chat templates take one system message, first). The
reply ends with a Markdown checklist; `plan_steps` reads its items, the user edits and approves them, and
`work_prompt` is what is then sent, in the mode the user chose.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

PLAN_INSTRUCTIONS = (
    "You are in plan mode: look and think, but change nothing. Use only tools that read. Finish your reply with "
    "the plan as a Markdown checklist, one `- [ ] step` per line, short and in order; the user will edit and "
    "approve it before any work starts."
)
CHECKLIST_ITEM = re.compile(r"^\s*[-*+]\s+\[[ xX]?\]\s+(?P<step>\S.*?)\s*$", re.MULTILINE)
NUMBERED_ITEM = re.compile(r"^\s*\d+[.)]\s+(?P<step>\S.*?)\s*$", re.MULTILINE)


def with_plan_instructions(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with plan mode's instructions at the end of the system prompt (one added when there is none)."""
    out = [dict(message) for message in messages]
    if out and out[0].get("role") == "system" and isinstance(out[0].get("content"), str):
        out[0]["content"] = f"{out[0]['content']}\n\n{PLAN_INSTRUCTIONS}"
        return out
    return [{"role": "system", "content": PLAN_INSTRUCTIONS}, *out]


def plan_steps(reply: str) -> list[str]:
    """The plan's steps in a reply: its checklist items, or else its numbered list; none when it has neither."""
    steps = [found.group("step") for found in CHECKLIST_ITEM.finditer(reply)]
    return steps or [found.group("step") for found in NUMBERED_ITEM.finditer(reply)]


def checklist(steps: Sequence[str]) -> str:
    """The steps as the Markdown checklist the user edits."""
    return "\n".join(f"- [ ] {step}" for step in steps)


def work_prompt(steps: Sequence[str]) -> str:
    """What starts the work on an approved plan."""
    return "The plan is approved. Carry it out, step by step:\n\n" + checklist(steps)
