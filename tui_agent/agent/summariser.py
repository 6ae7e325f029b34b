"""Provides `Summariser`: the model's summary of a conversation, asked in pieces that fit its context window.

A conversation that fits (with room left for the summary) is summarised in one request, as it would be sent
for a reply. One that does not — the window is known and the estimate is over it, or the server refused it
(`ContextTooLongError`), or the summary was cut because prompt and summary filled the window — is summarised
in pieces, turn by turn, each piece sent with the summary so far in front of it (the last summary stands for
the whole). A turn too long for a piece on its own is sent shortened: its longest texts keep their beginning
and end. What fits is estimated from the text (`estimate_tokens`), corrected by what a refusal says of the
real size, and asked again smaller after each refusal, a few times at most.

A summary the model did not finish is a failure, never the conversation's memory: one cut at the reply's
token limit (`finish_reason: length`, or `content_filter`), an empty one, or any error of the request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tui_agent.agent.compaction import SUMMARY_REQUEST, CompactionFailedError
from tui_agent.agent.conversation import SUMMARY_HEADING, strict_history
from tui_agent.agent.meter import estimate_tokens
from tui_agent.llm.errors import ContextTooLongError, LLMError
from tui_agent.llm.events import StreamEnd, TextDelta, Usage

if TYPE_CHECKING:  # the openai client is imported only when a client is built
    from tui_agent.llm.model_client import ModelClient

Messages = list[dict[str, Any]]

SUMMARY_ROOM = 1024
"""Tokens left free in the window for the summary itself (a quarter of a window smaller than 4k)."""
FILLED = 0.95
"""A summary cut where prompt and summary reach this share of the window was cut by the window, not its limit."""
MAX_SHRINKS = 4
"""Times a request that did not fit is asked again smaller before the compaction is given up."""
KEEP_CHARS = 400
"""Characters a shortened text keeps at least (its beginning and end)."""
CUT_REASONS = {"length": "the reply's token limit", "content_filter": "the server's content filter"}
"""Finish reasons of a summary the model did not finish, and what stopped it."""


class _TooLong(Exception):
    """A summary request did not fit the window (refused, or its summary cut by the full window)."""

    def __init__(self, prompt_tokens: int | None, window: int | None) -> None:
        super().__init__("too long")
        self.prompt_tokens = prompt_tokens
        self.window = window


@dataclass(frozen=True)
class Summary:
    """What summarising did."""

    text: str
    usage: Usage | None
    """Every request's usage, added up (None when the server reported none)."""
    pieces: int
    """Requests whose summaries were kept: 1 when the conversation fitted in one."""


@dataclass
class Summariser:
    """Summarises conversations with `client`, whose model serves `window` tokens (None: unknown until a refusal
    says it)."""

    client: ModelClient
    window: int | None
    scale: float = 1.0
    """The server's tokens per estimated token, learned from refusals that say the request's size."""
    limit: int | None = field(default=None, init=False)
    """Prompt tokens a request may have (None: no limit known)."""

    def __post_init__(self) -> None:
        self.limit = None if self.window is None else self.window - min(SUMMARY_ROOM, self.window // 4)

    async def summarise(self, conversation: Sequence[dict[str, Any]]) -> Summary:
        """The summary of `conversation` (chat messages as the model is sent them, the system prompt first)."""
        system = [dict(m) for m in conversation[:1] if m.get("role") == "system"]
        turns = _turns(list(conversation[len(system) :]))
        summary: str | None = None
        usage: Usage | None = None
        pieces = shrinks = 0
        while turns or summary is None:
            piece, taken = self._piece(system, summary, turns)
            request = _request(system, summary, piece)
            try:
                text, used = await _ask(self.client, request, self.window)
            except _TooLong as refused:
                shrinks += 1
                if shrinks > MAX_SHRINKS:
                    raise CompactionFailedError(_NO_FIT) from None
                self._shrink(refused, estimate_tokens(request))
                continue
            summary, usage, pieces, turns = text, _added(usage, used), pieces + 1, turns[taken:]
        return Summary(summary, usage, pieces)

    def _piece(self, system: Messages, summary: str | None, turns: list[Messages]) -> tuple[Messages, int]:
        """The next piece: as many of `turns` as fit after `system` and `summary` (at least one, shortened to
        fit when it is too long alone), and how many turns it takes."""
        taken: Messages = []
        for count, turn in enumerate(turns):
            if not self._fits(_request(system, summary, [*taken, *turn])):
                if count:
                    return taken, count
                return self._shortened(system, summary, turn), 1
            taken.extend(turn)
        return taken, len(turns)

    def _fits(self, request: Messages) -> bool:
        return self.limit is None or estimate_tokens(request) * self.scale <= self.limit

    def _shortened(self, system: Messages, summary: str | None, turn: Messages) -> Messages:
        """`turn` with its longest texts cut in the middle until the request fits (as far as texts can go)."""
        assert self.limit is not None  # a turn is only too long against a limit
        over = estimate_tokens(_request(system, summary, turn)) - int(self.limit / self.scale)
        return _cut_texts(turn, over * 4 + 80)  # in characters (see `estimate_tokens`), and the notes' own

    def _shrink(self, refused: _TooLong, estimate: int) -> None:
        """Learn from a request that did not fit: its real size, the window, and a smaller limit."""
        if refused.window is not None:
            self.window = refused.window
        if refused.prompt_tokens is not None and estimate:
            self.scale = max(self.scale, refused.prompt_tokens / estimate)
        sent = refused.prompt_tokens or int(estimate * self.scale)
        fresh = None if self.window is None else self.window - min(SUMMARY_ROOM, self.window // 4)
        self.limit = max(1, int(min(sent, self.limit or sent, fresh or sent) * 0.6))


_NO_FIT = (
    "Could not compact the conversation: even in pieces, what has to be summarised does not fit the model's "
    "context window with room for the summary. Nothing was compacted."
)


def _turns(messages: Messages) -> list[Messages]:
    """`messages` in turns: each starts at a user message (the first may start with anything)."""
    turns: list[Messages] = []
    for message in messages:
        if not turns or message.get("role") == "user":
            turns.append([])
        turns[-1].append(message)
    return turns


def _request(system: Messages, summary: str | None, piece: Messages) -> Messages:
    """The messages asking for a summary of `piece`, the summary so far in front of it."""
    before = [{"role": "user", "content": f"{SUMMARY_HEADING}\n\n{summary}"}] if summary is not None else []
    return strict_history([*system, *before, *piece, {"role": "user", "content": SUMMARY_REQUEST}])


def _cut_texts(turn: Messages, chars: int) -> Messages:
    """`turn` with `chars` characters taken out of the middle of its longest texts (each keeps `KEEP_CHARS`)."""
    out = [dict(message) for message in turn]
    for message in sorted(out, key=lambda m: -len(_text(m.get("content")))):
        text = _text(message.get("content"))
        cut = min(chars, len(text) - KEEP_CHARS)
        if chars <= 0 or cut <= 0:
            break
        head = (len(text) - cut) // 2
        note = f"\n[… {cut:,} characters left out here, so that this part fits the model's context window …]\n"
        message["content"] = text[:head] + note + text[head + cut :]
        chars -= cut
    return out


def _text(content: object) -> str:
    if isinstance(content, list):  # parts: their text (an image is not summarised from a shortened turn)
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


async def _ask(client: ModelClient, messages: Messages, window: int | None) -> tuple[str, Usage | None]:
    """The model's summary (no tools offered) and its usage; `_TooLong` when it did not fit the window."""
    text: list[str] = []
    usage: Usage | None = None
    finish: str | None = None
    try:
        async for event in client.stream_chat(messages, None):
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, Usage):
                usage = event
            elif isinstance(event, StreamEnd):
                finish = event.finish_reason
    except ContextTooLongError as error:
        raise _TooLong(error.prompt_tokens, error.window) from error
    except LLMError as error:
        raise CompactionFailedError(f"Could not compact the conversation: {error.user_message}") from error
    if finish in CUT_REASONS:
        if finish == "length" and _filled(usage, window):
            raise _TooLong(usage.prompt_tokens if usage else None, window)
        raise CompactionFailedError(_cut_message(client, finish))
    summary = "".join(text).strip()
    if not summary:
        raise CompactionFailedError("Could not compact the conversation: the model gave no summary.")
    return summary, usage


def _filled(usage: Usage | None, window: int | None) -> bool:
    """Prompt and summary filled the window (so a smaller prompt leaves the summary room)."""
    return usage is not None and window is not None and usage.prompt_tokens + usage.completion_tokens >= window * FILLED


def _cut_message(client: ModelClient, finish: str) -> str:
    limit = f" (max_tokens = {client.max_tokens:,})" if finish == "length" and client.max_tokens else ""
    advice = "raise max_tokens, then press F9 to try again" if limit else "press F9 to try again"
    return (
        f"Could not compact the conversation: the model's summary was cut off by {CUT_REASONS[finish]}{limit}, "
        f"so it would have left things out. Nothing was compacted: {advice}."
    )


def _added(total: Usage | None, more: Usage | None) -> Usage | None:
    if total is None or more is None:
        return more or total
    return Usage(
        total.prompt_tokens + more.prompt_tokens,
        total.completion_tokens + more.completion_tokens,
        total.cached_tokens + more.cached_tokens,
        total.cache_write_tokens + more.cache_write_tokens,
    )
