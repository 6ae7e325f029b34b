"""Provides `role_problem`: what a strict chat server would reject in a request's messages, in its words.

Servers that render the conversation through a strict chat template — llama.cpp's `--jinja` with Gemma,
Mistral or Llama 2 templates, vLLM with `mistral_common` — refuse with 400 what OpenAI itself accepts.
The offline model in strict mode (`tui-agent serve --strict`, `strict = true` in a scenario) rejects
exactly this, with the message such a server sends:

- a system message anywhere but first;
- roles that do not alternate: after the optional system message, user and assistant take turns, the
  first is the user's (two users, or two assistants, in a row are refused);
- an assistant message with neither text nor tool calls;
- a tool call without its `tool` answer, or a `tool` message that does not answer a call of the assistant
  message right before it (tool messages come directly after the call, before anything else);
- a user message right after tool results (the assistant speaks after its tools, then the user);
- a request that ends with an assistant message (nothing left for the model to answer).
"""

from __future__ import annotations

from typing import Any

ALTERNATE = "Conversation roles must alternate user/assistant/user/assistant/..."
SYSTEM_FIRST = "System message must be at the beginning."
EMPTY_ASSISTANT = "Assistant message must have either content or tool_calls, but not none."
UNANSWERED = "Not the same number of function calls and responses"
LAST_ROLE = "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant"


def role_problem(messages: Any) -> str | None:
    """The sentence a strict server answers 400 with, or None when it would accept `messages`."""
    if not isinstance(messages, list) or not messages:
        return "The request has no messages."
    body = messages[1:] if _role(messages[0]) == "system" else messages
    previous: str | None = None
    pending: list[str] = []  # ids of the last assistant message's calls not answered yet
    for message in body:
        role = _role(message)
        problem = _step(previous, role, message, pending)
        if problem is not None:
            return problem
        previous = role
    if pending:
        return UNANSWERED
    if previous in (None, "assistant"):
        return LAST_ROLE if previous else "The request has no user message."
    return None


def _step(previous: str | None, role: str, message: dict[str, Any], pending: list[str]) -> str | None:
    """Check one message against the one before it; updates `pending` (the calls still to answer)."""
    if role == "system":
        return SYSTEM_FIRST
    if pending and role != "tool":
        return UNANSWERED
    if role == "tool":
        call_id = str(message.get("tool_call_id"))
        if call_id not in pending:
            return f"Unexpected tool call id {call_id} after role '{previous}'"
        pending.remove(call_id)
        return None
    if role not in ("user", "assistant"):
        return f"Unexpected message role '{role}'"
    if previous == "tool" and role == "user":
        return "Unexpected role 'user' after role 'tool'"
    if role == previous or (previous is None and role == "assistant"):
        return ALTERNATE
    if role == "assistant":
        calls = [call for call in message.get("tool_calls") or [] if isinstance(call, dict)]
        if not message.get("content") and not calls:
            return EMPTY_ASSISTANT
        pending.extend(str(call.get("id")) for call in calls)
    return None


def _role(message: Any) -> str:
    return str(message.get("role")) if isinstance(message, dict) else "?"
