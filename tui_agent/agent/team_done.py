"""Provides `done_reason`: whether a member's reply meets its team's stop condition (`DoneWhen`), and why.

The conditions are AutoGen's termination conditions as data: the reply contains a text exactly (`text`, the
plain `done_when = "APPROVED"`), in any case (`match`), a regular expression is found in it (`regex`), or a
plugin function marked `@hook("team_done")` says so (`hook`: AutoGen's `is_termination_msg`). The first that
holds gives the reason the team stops with, in words; `by` limits them to some members' replies.
"""

from __future__ import annotations

import re

from tui_agent.agents.profiles import DoneWhen
from tui_agent.tools.hooks import Hooks


def missing_hook(done: DoneWhen, hooks: Hooks | None) -> str | None:
    """The problem with a team whose stop hook no plugin provides (said before it runs), else None."""
    if done.hook is None or (hooks is not None and hooks.named("team_done", done.hook) is not None):
        return None
    return (
        f'its done_when.hook {done.hook!r} is not a plugin function marked @hook("team_done") (see `tui-agent plugins`)'
    )


async def done_reason(done: DoneWhen, team: str, member: str, reply: str, hooks: Hooks | None) -> str | None:
    """Why `member`'s `reply` ends team `team` under `done`, or None when it does not."""
    if done.by and member not in done.by:
        return None
    if done.text and done.text in reply:
        return f"{member} said {done.text}"
    if done.match and done.match.casefold() in reply.casefold():
        return f"{member} said {done.match}"
    if done.regex and (found := re.search(done.regex, reply, re.MULTILINE)):
        return f"{member}'s reply matched {done.regex!r} ({_shortened(found.group(0))})"
    if done.hook and hooks is not None:
        answer = await hooks.team_done(done.hook, team, member, reply)
        if isinstance(answer, str) and answer.strip():
            return f"{done.hook}: {answer.strip()}"
        if answer is True or (answer and not isinstance(answer, str)):
            return f"{done.hook} ended the team after {member}'s reply"
    return None


def _shortened(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
