"""Provides the scenario model: scripted replies and faults for the offline server, loaded from JSON or TOML.

A scenario is a list of replies served in order, one per chat-completions request; when the list is used
up the server falls back to its default behaviour (or repeats the last reply). Example (TOML)::

    [[replies]]
    status = 429
    retry_after = 1

    [[replies]]
    text = "Hello **world**"
    chunk_size = 4
    chunk_delay = 0.01

    [[replies]]
    reasoning = "The user greets me; a short greeting back will do."
    text = "Hello!"

    [[replies]]
    reasoning = "Paris first."
    text = "Let me look."
    [[replies.interleaved]]
    reasoning = " Now the forecast."
    text = " Sunny."

    [[replies]]
    text = ""
    [[replies.tool_calls]]
    name = "get_current_weather"
    arguments = { location = "Paris", to_user = "Let me check." }
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class ToolCallSpec(BaseModel):
    """One tool call the model makes. `arguments` as an object is sent as JSON; as a string, verbatim."""

    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = None
    """Call id; default a new unique `call_<24 hex digits>` (or `call_<n>`, see `Scenario.call_ids`)."""


class UsageSpec(BaseModel):
    """Token counts to report; by default they are counted from the words of the request and reply."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    """Of `prompt_tokens`, those to report as served from the prompt cache."""


class Segment(BaseModel):
    """More of a response after the reply's own reasoning, text and calls: reasoning, then text, then calls."""

    model_config = ConfigDict(extra="forbid")

    reasoning: str = ""
    text: str = ""
    tool_calls: list[ToolCallSpec] = Field(default_factory=list)


class Reply(BaseModel):
    """One scripted response, its chunking and its faults."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    """Content streamed as text deltas."""
    reasoning: str = ""
    """Reasoning streamed before the content, as a thinking model's server does (`reasoning_field` deltas)."""
    reasoning_field: Literal["reasoning_content", "reasoning"] = "reasoning_content"
    """The delta field reasoning comes in: `reasoning_content` (DeepSeek, vLLM, llama.cpp) or `reasoning`
    (Ollama, OpenRouter)."""
    tool_calls: list[ToolCallSpec] = Field(default_factory=list)
    delta_fields: dict[str, str] = Field(default_factory=dict)
    """Other delta fields, streamed in pieces before the reasoning and the content, field → text (a part kind a
    server sends, e.g. `{"refusal": "..."}`: OpenAI's refusal); message fields in a completion not streamed."""
    interleaved: list[Segment] = Field(default_factory=list)
    """Streamed after the above, in order, as servers with interleaved thinking do: reasoning again once the
    answer began, or between tool calls (the calls' indexes go on from the reply's own; a token limit counts
    them too)."""
    finish_reason: str | None = None
    """Default: `tool_calls` when there are tool calls, else `stop`."""
    usage: UsageSpec | None = None
    chunk_size: int = 16
    """Characters of text (and of tool arguments) per chunk."""
    arguments_whole: bool = False
    """Send each call's arguments complete in its first delta."""
    calls_start_together: bool = False
    """Send the first delta of every tool call in one chunk."""
    finish_with_last_delta: bool = False
    """Put `finish_reason` on the chunk carrying the last delta instead of a chunk of its own."""
    chunk_delay: float = 0.0
    """Seconds between chunks."""
    first_token_delay: float = 0.0
    """Seconds between the response headers and the first chunk."""
    raw_events: list[str] | None = None
    """SSE `data:` payloads sent verbatim instead of chunks built from the fields above."""
    # Faults.
    status: int = 200
    """A non-200 status answers with an OpenAI-style error body instead of a reply."""
    retry_after: float | str | None = None
    """Value of the `Retry-After` header sent with an error status: seconds, or a string sent as it is (an
    HTTP date such as `Wed, 21 Oct 2026 07:28:00 GMT`)."""
    error_message: str | None = None
    stall_after: int | None = None
    """Stop sending (keeping the connection open) after this many chunks."""
    cut_after: int | None = None
    """Close the connection abruptly after this many chunks."""
    malformed_after: int | None = None
    """Send a chunk that is not JSON after this many chunks."""
    non_utf8_after: int | None = None
    """Send bytes that are not UTF-8 after this many chunks."""
    missing_finish_reason: bool = False
    """Never send a finish reason (nor `[DONE]`)."""
    html: bool = False
    """Answer 200 with an HTML page instead of an event stream."""
    ignore_stream: bool = False
    """Answer a streaming request with one JSON completion, as some servers do."""

    @property
    def segments(self) -> list[Segment]:
        """The response in streaming order: the reply's own reasoning, text and calls, then `interleaved`."""
        return [Segment(reasoning=self.reasoning, text=self.text, tool_calls=self.tool_calls), *self.interleaved]

    @property
    def all_calls(self) -> list[ToolCallSpec]:
        """Every call of the response, in index order."""
        return [spec for segment in self.segments for spec in segment.tool_calls]


class Scenario(BaseModel):
    """Replies served in order, then `then` decides: the default behaviour or the last reply again."""

    model_config = ConfigDict(extra="forbid")

    replies: list[Reply] = Field(default_factory=list)
    then: Literal["default", "repeat_last"] = "default"
    models: list[str] = Field(default_factory=lambda: ["offline"])
    """Model ids listed by `/v1/models` (any model name is accepted regardless)."""
    context_window: int | None = Field(default=32768, gt=0)
    """Tokens (words) of the window the server serves, said as `serves_like` says it (`generic`: each model's
    `/v1/models` entry gives it as its `context_length`, as OpenRouter, LM Studio and others do); None: not
    said."""
    serves_like: Literal["generic", "openai", "vllm", "llama.cpp", "ollama"] = "generic"
    """Whose words the window is said in (`/v1/models`, llama.cpp's `/props`, Ollama's `/api/ps` and
    `/api/show`) and a request over it refused in: see `tui_agent.offline.served`."""
    train_window: int = Field(default=32768, gt=0)
    """The window the model was trained with, as llama.cpp (`meta.n_ctx_train`) and Ollama (`model_info`)
    also say it: not the served one."""
    ollama_loaded: bool = True
    """With `serves_like = "ollama"`: the models are loaded from the start (listed by `/api/ps`), else once a chat
    request has used one."""
    ollama_num_ctx: bool = True
    """With `serves_like = "ollama"`: the Modelfile sets `num_ctx` (`/api/show` says it); else only a loaded
    model's `/api/ps` entry says the window."""
    enforce_window: bool = False
    """Refuse (400, in the words of `serves_like`) a request whose prompt reaches `context_window` words, and
    cut a reply (`finish_reason: length`) where prompt and reply fill it, as llama.cpp does."""
    call_ids: Literal["unique", "per_response"] = "unique"
    """Ids of calls without their own: `unique` ones, new for every call as real providers' are, or
    `per_response`: `call_0`, `call_1`... numbered again in every response, as several local servers do."""
    strict: bool = False
    """Answer 400, as strict chat templates do, to messages whose roles do not alternate, unanswered tool
    calls, empty assistant messages... (see `tui_agent.offline.strict`)."""
    text_only: bool = False
    """Answer 400, as a text-only model does, to a request with an `image_url` content part."""
    check_images: bool = False
    """Answer 400, as OpenAI does ("You uploaded an unsupported image..."), to a request with an image that is
    not a whole PNG, JPEG or GIF (a cut or damaged file)."""
    default_chunk_delay: float = 0.01
    """Seconds between chunks of default-behaviour replies: a visible typing effect in the app, still quick in
    tests (a default answer is a few dozen chunks)."""


def load_scenario(path: str | Path) -> Scenario:
    """Read a scenario from a `.json` or `.toml` file; raises ValueError with a readable message."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (OSError, ValueError) as error:
        raise ValueError(f"Cannot read scenario file {path}: {error}") from error
    try:
        return Scenario.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise ValueError(f"Scenario file {path} is not valid: {problems}") from error


def as_scenario(value: Scenario | dict[str, Any] | str | Path | None) -> Scenario:
    """Accept a Scenario, a plain dict, or a file path (None: the default behaviour only)."""
    if value is None:
        return Scenario()
    if isinstance(value, Scenario):
        return value
    if isinstance(value, dict):
        return Scenario.model_validate(value)
    return load_scenario(value)
