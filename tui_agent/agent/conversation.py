"""Provides `Conversation`: the messages sent to the model, in the order the chat-completions API requires.

Every assistant message that made tool calls is followed by one `tool` message per call, including
calls that never ran (denied, invalid, interrupted) — endpoints reject a history where a call has no
answer. `from_history` rebuilds the list from stored messages when a session is resumed (and after a
retry): a reply that was retried (`replaced_by` a message among them) is left out, as if never sent.

A compacted session (`tui_agent.agent.compaction`) has a summary — a `system` message later on the branch —
standing for older messages (their `compacted_by` names it): they are left out, and the summary is sent in
their place, as the user's words ("Summary of the conversation so far: ..."), so roles still alternate. A
summary compacted by a later one is left out too; a summary that is not on the branch compacts nothing.

A reply's parts other than its text (reasoning, ...) are never part of it: shown and stored, but not sent back
(providers ask for that, and it would spend the context on thoughts the model has already had).

`messages` is the record of what happened; `request()` is what is sent, repaired so that a strict server
(a chat template that demands alternation: Gemma, Mistral, Llama 2 in llama.cpp, vLLM) accepts it
whatever happened before — failed, interrupted or cut-off replies included:

- the system prompt, if any, comes first; user and assistant then take turns;
- a reply that failed or was interrupted with partial text is sent as the assistant message it was;
- a reply that failed with no text at all leaves two user messages in a row: they are sent as one,
  joined by a blank line — the model never answered the first, so it is asked both at once, and nothing
  is put in its mouth;
- after tool results the assistant speaks before the user: when the reply after them failed, a short
  assistant placeholder, `(no reply)`, stands in for it (a user message cannot follow a tool result);
- every tool call is answered, directly after its assistant message (an unanswered one gets the
  "interrupted" result); assistant messages with neither text nor tool calls are left out; two assistant
  messages in a row are joined;
- the request never ends with an assistant message: `Continue.` is asked after it.

In a session a team worked in, each agent is sent the others' replies (a stored message's `agent`) as input
labelled with their name (`[critic] ...`), and only its own as its words (`from_history(..., speaker=)`).
A prompt with files or images is a content list (`content.user_content`); when the model refuses images
(`refuse_images`, after a 400), they are left out of every later request, each replaced by a note. Images tool
calls returned follow the round's tool results in one user message (`content.tool_images_content`; the strict
repair puts `(no reply)` before it); for a model that refuses images it is left out (the tool messages' stand-in
lines say what there was).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tui_agent.agent.content import (
    as_parts,
    has_images,
    leave_out_newest_images,
    tool_images_content,
    user_content,
    without_images,
)
from tui_agent.history.attachments import Attachment
from tui_agent.history.models import Message
from tui_agent.status import MessageStatus, Role, ToolStatus
from tui_agent.tool_call import CallKey, ToolCall

INTERRUPTED_RESULT = "The tool call was interrupted before it finished; it did not complete and was not re-run."
NO_REPLY = "(no reply)"
"""Stands in for a reply that never came after tool results (see the module docstring)."""
DEFAULT_SPEAKER = "assistant"
"""How a reply of the session's own agent is labelled when a team member reads it."""
SUMMARY_HEADING = "Summary of the conversation so far (older messages were compacted into it):"
"""Leads a compaction summary in what is sent."""
CONTINUE = "Continue."
"""Asked after a request's last assistant message, so the model has something to answer."""
TOOL_IMAGES = "tui_agent_tool_images"
"""Marks (in the record only: `request` takes it off) the user message carrying images tool calls returned."""


class Conversation:
    """The model's view of a session: system prompt, user turns, assistant replies, tool results."""

    def __init__(self, system_prompt: str | None = None) -> None:
        self.messages: list[dict[str, Any]] = []
        self.images_refused = False
        if system_prompt:
            self.messages.append({"role": "system", "content": system_prompt})

    @property
    def prompts(self) -> int:
        """How many of the person's prompts it holds (not a compaction's summary, nor the images tools returned):
        the number of the turn they are on, for the task tree."""
        return sum(
            m.get("role") == "user" and TOOL_IMAGES not in m and not str(m.get("content")).startswith(SUMMARY_HEADING)
            for m in self.messages
        )

    def add_user(self, text: str, attachments: Sequence[Attachment] = ()) -> None:
        """Append the user's prompt, with its files and images (`content.user_content`)."""
        self.messages.append({"role": "user", "content": user_content(text, attachments)})

    def add_assistant(
        self, text: str, calls: Sequence[ToolCall] = (), payloads: Mapping[str, bytes] | None = None
    ) -> None:
        """Append an assistant reply and, when it made tool calls, their answers (`model_answer`) right after it,
        then the images they returned (their bytes: the calls' own, or `payloads` by hash) in a user message."""
        if not text and not calls:
            return
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [_call_entry(call) for call in calls]
        self.messages.append(message)
        for call in calls:
            self.messages.append({"role": "tool", "tool_call_id": call.call_id, "content": model_answer(call)})
        if images := tool_images_content(calls, payloads or {}):
            keys = [call.key for call in calls if call.attachments]
            self.messages.append({"role": "user", "content": images, TOOL_IMAGES: keys})

    def add_summary(self, text: str) -> None:
        """Append a compaction summary, said as the user's words (see the module docstring)."""
        self.messages.append({"role": "user", "content": f"{SUMMARY_HEADING}\n\n{text}"})

    def request(self) -> list[dict[str, Any]]:
        """The messages to send: `messages` repaired as the module docstring says (the record is unchanged);
        after `refuse_images`, each image is a note that it was left out."""
        sent = [m for m in self.messages if not (self.images_refused and m.get(TOOL_IMAGES))]
        sent = [{k: v for k, v in m.items() if k != TOOL_IMAGES} if TOOL_IMAGES in m else m for m in sent]
        return strict_history(without_images(sent) if self.images_refused else sent)

    @property
    def has_images(self) -> bool:
        """Whether an image would be sent with the next request."""
        return not self.images_refused and has_images(self.messages)

    def leave_out_newest_images(self, why: str) -> list[CallKey] | None:
        """The server refused the newest images (invalid ones): a note saying `why` stands for each from now on.
        None when they were a prompt's; else the calls that returned them (history is to keep that too, so a
        resumed session does not send them again)."""
        newest = next((m for m in reversed(self.messages) if has_images([m])), None)
        leave_out_newest_images(self.messages, why)
        keys = newest.get(TOOL_IMAGES) if newest is not None else None
        return [(str(m), str(c)) for m, c in keys] if keys else None

    def refuse_images(self) -> None:
        """The model rejected a request with images: from now on they are left out of what is sent."""
        self.images_refused = True

    @classmethod
    def from_history(
        cls,
        stored: Iterable[Message],
        system_prompt: str | None = None,
        attachments: Mapping[str, Sequence[Attachment]] | None = None,
        speaker: str | None = None,
        payloads: Mapping[str, bytes] | None = None,
    ) -> Conversation:
        """Rebuild the model's view from stored messages (tool results and interruptions included; a prompt's
        files and images from `attachments`, by message id; the images tool calls returned from `payloads`, by
        hash), as agent `speaker` sees it (None: the session's
        own): another agent's reply (a team member's) is its input, labelled with its name (`[critic] ...`),
        not its own words."""
        attached = attachments or {}
        conversation = cls(system_prompt)
        stored = list(stored)
        ids = {message.id for message in stored}
        # A retried reply is shown beside its retry; on a branch without the retry (switched to) it is the reply.
        retried = {message.id for message in stored if message.replaced_by in ids}
        summaries = {message.id: message for message in stored if message.role is Role.SYSTEM}
        said: set[str] = set()
        for message in stored:
            summary = summary_for(message, summaries) or summaries.get(message.id)
            if summary is not None:  # said once, where the first message it stands for was
                if summary.id not in said:
                    said.add(summary.id)
                    conversation.add_summary(summary.content)
            elif message.role is Role.USER:
                conversation.add_user(message.content, attached.get(message.id, ()))
            elif (
                message.role is Role.ASSISTANT
                and message.status is not MessageStatus.STREAMING
                and message.id not in retried
            ):
                if message.agent == speaker:
                    conversation.add_assistant(message.content, message.tool_calls, payloads)
                elif message.content.strip():
                    conversation.add_user(labelled(message.agent or DEFAULT_SPEAKER, message.content))
        return conversation


def labelled(speaker: str, text: str) -> str:
    """Another agent's reply, as the agent reading it receives it."""
    return f"[{speaker}] {text}"


def summary_for(message: Message, summaries: Mapping[str, Message]) -> Message | None:
    """The summary among `summaries` (those on the branch) that stands for `message` in the end (following
    summaries compacted by later ones); None when it was not compacted on this branch."""
    found, target, seen = None, message.compacted_by, set()
    while target is not None and target in summaries and target not in seen:
        seen.add(target)
        found = summaries[target]
        target = found.compacted_by
    return found


def strict_history(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` made valid for a strict server (see the module docstring); the input is not changed."""
    out: list[dict[str, Any]] = []
    pending: list[str] = []  # call ids of the last assistant message still waiting for their answer
    for message in messages:
        role = message.get("role")
        if role != "tool" and pending:
            _answer_pending(out, pending)
        if role == "system" and not out:
            out.append(dict(message))
        elif role == "tool":
            if message.get("tool_call_id") in pending:  # an answer with no call before it is left out
                pending.remove(message["tool_call_id"])
                out.append(dict(message))
        elif role == "assistant":
            _add_assistant(out, message, pending)
        else:  # the user, or a system message after the start (sent as the user's words)
            _add_user(out, {**message, "role": "user"})
    _answer_pending(out, pending)
    if out and out[-1]["role"] == "assistant":
        out.append({"role": "user", "content": CONTINUE})
    return out


def _add_user(out: list[dict[str, Any]], message: dict[str, Any]) -> None:
    last = out[-1]["role"] if out else None
    if last == "user":
        earlier, content = out[-1].get("content"), message.get("content")
        if isinstance(earlier, list) or isinstance(content, list):  # attachments: keep every part
            joined = [*as_parts(earlier), {"type": "text", "text": "\n\n"}, *as_parts(content)]
            out[-1] = {"role": "user", "content": joined}
        else:
            out[-1] = {"role": "user", "content": f"{_text(out[-1])}\n\n{_text(message)}"}
        return
    if last == "tool":
        out.append({"role": "assistant", "content": NO_REPLY})
    out.append(message)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # parts: their text
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _add_assistant(out: list[dict[str, Any]], message: dict[str, Any], pending: list[str]) -> None:
    calls = list(message.get("tool_calls") or [])
    if not message.get("content") and not calls:
        return
    if not out or out[-1]["role"] == "system":
        out.append({"role": "user", "content": CONTINUE})  # a history that starts with a reply
    if out[-1]["role"] == "assistant":  # two replies in a row (only the first can be without calls)
        earlier = out.pop()
        message = {**message, "content": (earlier.get("content") or "") + (message.get("content") or "")}
    out.append(dict(message))
    pending.extend(str(call["id"]) for call in calls)


def _answer_pending(out: list[dict[str, Any]], pending: list[str]) -> None:
    out.extend({"role": "tool", "tool_call_id": call_id, "content": INTERRUPTED_RESULT} for call_id in pending)
    pending.clear()


def _call_entry(call: ToolCall) -> dict[str, Any]:
    # The parsed arguments are what is sent back (without `to_user`); unparseable ones become {}.
    return {
        "id": call.call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments_for_model()},
    }


def model_answer(call: ToolCall) -> str:
    """The text the model gets for `call`, live or loaded from history alike: the result, or for a failed or
    denied call its error (the runner keeps that as `error`); a call that never finished was interrupted."""
    if call.status is ToolStatus.INTERRUPTED or not call.status.is_final:
        return INTERRUPTED_RESULT
    if call.result is not None:
        return call.result
    if call.status in (ToolStatus.FAILED, ToolStatus.DENIED):
        return call.error or ("Denied." if call.status is ToolStatus.DENIED else "The tool call failed.")
    return INTERRUPTED_RESULT
