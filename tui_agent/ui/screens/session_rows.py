"""Provides `session_row`: one stored session as the session screen lists it, fitted to the list's width, and
`relative_time`, when it was last active in words ("2 min ago", "yesterday").

A row is two lines. The first: the title, then (right-aligned) what identifies the session at a glance — its
agent, model, message count, cost and last activity; when they do not all fit beside a readable title, the least
useful go first (the message count, then the model, the cost, the agent; the time always stays). The second:
the start of its last reply, or, when a search found the session by a message, the words that matched.
A sub-agent's session is indented under its parent's and led by its agent's name.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from textual.content import Content

from tui_agent.agent.records import Session, SessionGlance
from tui_agent.prices import format_cost
from tui_agent.ui.screens.session_dialogs import one_line

INDENT = "    "
"""How far a sub-agent's session sits under its parent's, per level."""
MARK = 2
"""Columns of the current-session mark ("● ") before every title."""
TITLE_AT_LEAST = 24
"""Columns a title keeps at least before the row's details give way (least useful first): half the row, when
that is more."""
GAP = 2
"""Columns between the title and the details."""
DROP_ORDER = ("messages", "model", "cost", "agent")
"""The details a narrow row leaves out, first to last (the time always stays)."""


MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)|\*\*|__|`+|(?<!\w)[*_]|[*_](?!\w)", re.MULTILINE)
"""Markdown's marks a preview leaves out: heading, quote and list marks at a line's start, emphasis and code."""


def plain_preview(text: str) -> str:
    """A reply's start as a line of plain words (its Markdown marks left out)."""
    return MARKUP.sub("", text)


def relative_time(when: datetime, now: datetime) -> str:
    """When, as a person says it: "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", else the date."""
    when, now = when.astimezone(), now.astimezone()
    ago = now - when
    if ago < timedelta(minutes=1):
        return "just now"
    if ago < timedelta(hours=1):
        return f"{int(ago.total_seconds() // 60)} min ago"
    days = (now.date() - when.date()).days
    if days == 0:
        return f"{int(ago.total_seconds() // 3600)} h ago"
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    return f"{when:%b} {when.day}" if when.year == now.year else f"{when:%Y-%m-%d}"


def spent(glance: SessionGlance) -> str:
    """What the session cost ("$0.0123"), its tokens when a model has no price ("1,234 tok"), "" with no usage."""
    if glance.cost is not None:
        return format_cost(glance.cost)
    return f"{glance.tokens:,} tok" if glance.tokens else ""


def details(session: Session, glance: SessionGlance, now: datetime, *, depth: int = 0) -> dict[str, str]:
    """The row's details by name, in the order they are shown (empty ones left out)."""
    count = session.message_count
    found = {
        "agent": "" if depth else (session.agent or ""),  # a sub-agent's row is led by its agent already
        "model": session.model or "",
        "messages": f"{count} message{'s' if count != 1 else ''}",
        "cost": spent(glance),
        "time": relative_time(session.updated_at, now),
    }
    return {name: one_line(text, 30) for name, text in found.items() if text}


def fitted(shown: dict[str, str], room: int) -> str:
    """`shown` joined with " · ", leaving out the least useful until it fits in `room` columns."""
    shown = dict(shown)
    for name in DROP_ORDER:
        if len(" · ".join(shown.values())) <= room:
            break
        shown.pop(name, None)
    return " · ".join(shown.values())


def session_row(
    session: Session,
    glance: SessionGlance,
    now: datetime,
    width: int,
    *,
    snippet: str | None = None,
    current: bool = False,
    depth: int = 0,
) -> Content:
    """The session's two lines at `width` columns (see the module); `snippet`: the search words it was found by."""
    indent = INDENT * depth
    lead = Content.assemble(indent, ("● " if current else "  ", "bold"))
    if depth and session.agent:
        lead = Content.assemble(lead, "↳ ", (one_line(session.agent, 30), "bold $accent"), " · ")
    title_room = max(width - lead.cell_length, 8)
    title = one_line(session.title or "Untitled", title_room)
    keep = min(len(title), max(TITLE_AT_LEAST, title_room // 2))  # a short title leaves the details more room
    meta = fitted(details(session, glance, now, depth=depth), max(title_room - keep - GAP, 0))
    title = one_line(title, max(title_room - len(meta) - GAP, 8) if meta else title_room)
    pad = max(title_room - len(title) - len(meta), GAP if meta else 0)
    first = Content.assemble(lead, (title, "bold"), " " * pad, (meta, "dim"))
    under = f"{indent}{' ' * MARK}"
    room = max(width - len(under), 8)
    if snippet:
        second = Content.styled(under + one_line(snippet, room), "italic")
    elif glance.last_reply:
        second = Content.styled(under + one_line(plain_preview(glance.last_reply), room), "dim italic")
    else:
        second = Content.styled(under + "(no reply yet)", "dim")
    return Content("\n").join([first, second])
