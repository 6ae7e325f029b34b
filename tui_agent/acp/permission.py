"""Provides `ask_client`: a tool call that asks before it runs, put to the editor as an ACP permission request,
and the editor's choice turned into our `Decision`.

The options are the approval dialog's: allow once, always allow (this tool, or for a command-like tool this
exact command), for an edit tool allow edits to this file, deny. A request the editor cancels (its prompt was
cancelled), fails or answers with an option we did not offer denies the call: nothing runs unless allowed.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from tui_agent.acp.updates import call_id, proposed, title, tool_kind
from tui_agent.agent.edit_preview import EDIT_TOOLS
from tui_agent.tool_call import Decision, ToolCall

log = logging.getLogger(__name__)


def options_for(call: ToolCall) -> list[PermissionOption]:
    """What the editor offers for `call`, in the dialog's order; each option's id is its `Decision`."""
    always = f"Always allow `{call.command}`" if call.command else f"Always allow {call.name}"
    offered = [
        PermissionOption(option_id=Decision.ALLOW_ONCE, name="Allow once", kind="allow_once"),
        PermissionOption(option_id=Decision.ALLOW_ALWAYS, name=f"{always} this session", kind="allow_always"),
    ]
    path = (call.arguments or {}).get("path")
    if call.name in EDIT_TOOLS and isinstance(path, str) and path:
        offered.append(
            PermissionOption(
                option_id=Decision.ALLOW_FILE, name=f"Allow edits to {path} this session", kind="allow_always"
            )
        )
    offered.append(PermissionOption(option_id=Decision.DENY, name="Deny", kind="reject_once"))
    return offered


def decision_of(option_id: str, offered: list[PermissionOption]) -> Decision:
    """The decision an option the editor chose stands for (DENY for one we did not offer)."""
    if option_id not in {option.option_id for option in offered}:
        return Decision.DENY
    return Decision(option_id)


async def ask_client(
    client: Client,
    session_id: str,
    call: ToolCall,
    effect: str | None,
    cwd: Path,
    *,
    agent: str | None = None,
    prefix: str = "",
) -> Decision:
    """Ask the editor whether `call` may run (`agent`: the sub-agent whose call it is, named in the title;
    `prefix`: its calls' ids')."""
    offered = options_for(call)
    asked = ToolCallUpdate(
        tool_call_id=call_id(call, prefix),
        title=title(call, agent),
        kind=tool_kind(call.name, effect),
        status="pending",
        content=proposed(call, cwd) or None,
        raw_input=dict(call.arguments) if call.arguments is not None else None,
    )
    try:
        answer = await client.request_permission(session_id=session_id, tool_call=asked, options=offered)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # the editor failed to answer: the call is denied, the turn goes on
        log.warning("the editor did not answer the permission request for %s (%s): denied", call.name, error)
        return Decision.DENY
    if isinstance(answer.outcome, AllowedOutcome):
        return decision_of(answer.outcome.option_id, offered)
    return Decision.DENY
