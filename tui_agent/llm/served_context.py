"""Provides what a server says of the context window it serves, and of a request that did not fit it.

The window that matters is the one the server gives a request, not the one the model was trained with: a
llama.cpp server started with `-c 2048` serves 2,048 tokens of a model trained on 32,768. Where each server
says it:

- `/v1/models` entries (`served_window`): vLLM `max_model_len`; OpenRouter and LM Studio `context_length`
  (`max_context_length`); others `context_window`; llama.cpp builds that add it, `meta.n_ctx`. llama.cpp's
  `meta.n_ctx_train` is only the trained window: used when nothing better is said (`trained_window`).
- llama.cpp's `/props` (at the server's root, beside `/v1`): `default_generation_settings.n_ctx`, the window of
  one slot (`-c` divided among `--parallel` slots, what a request gets), else a top-level `n_ctx`
  (`props_window`). Asked when an entry looks like llama.cpp's (`looks_like_llama_cpp`).
- Ollama's `/api/ps`: `context_length` of each loaded model, what it was loaded with (`ollama_loaded_windows`);
  for a model not loaded, `/api/show`'s `parameters` may set `num_ctx` (`ollama_show_window`). Its
  `model_info` `<arch>.context_length` is the trained window and is not used. Asked when `/v1/models` says
  no window at all.

A request over the window is refused (`context_overflow`): llama.cpp answers 400 `exceed_context_size_error`
("request (2100 tokens) exceeds the available context size (2048 tokens)", with `n_ctx` and
`n_prompt_tokens`), OpenAI 400 `context_length_exceeded`, vLLM 400 "This model's maximum context length is
N tokens". The window and the prompt's size are read from it when it says them.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

WINDOW_FIELDS = ("max_model_len", "context_length", "context_window", "max_context_length")
"""Where servers put a model's served window in its `/v1/models` entry (see the module docstring)."""
OVERFLOW_CODES = ("context_length_exceeded", "exceed_context_size_error", "context_window_exceeded")
"""Error codes and types that mean the request is longer than the window."""
OVERFLOW_WORDS = re.compile(
    r"exceeds? the (?:available )?context size|maximum context length|context length exceeded|"
    r"context window (?:is )?exceeded|too many tokens in (?:the )?prompt|prompt is too long|"
    r"longer than the model'?s context",
    re.IGNORECASE,
)
"""What servers that send no code say of a request over the window."""
WINDOW_IN_WORDS = re.compile(
    r"(?:available context size|maximum context length is|context length is|context window is)\D{0,12}?(\d[\d,]*)"
    r"\s*tokens",
    re.IGNORECASE,
)
PROMPT_IN_WORDS = re.compile(r"(?:request|messages resulted in|prompt has|you requested)\D{0,12}?(\d[\d,]*)\s*tokens")


Ask = Callable[[str, Mapping[str, Any] | None], Awaitable[object]]
"""Asks the server for a path at its root (a GET, or a POST of the body given): the JSON it answers, None when
it does not (no such route: not that kind of server)."""


async def learn_windows(entries: Sequence[Mapping[str, Any]], model: str, ask: Ask) -> dict[str, int]:
    """Model id -> served window, from the server's `/v1/models` `entries` and, where they say too little,
    llama.cpp's `/props` or Ollama's `/api/ps` and `/api/show` (asked through `ask`; `model` is the one in use,
    which a llama.cpp server answers whatever its name)."""
    ids = [str(entry["id"]) for entry in entries if isinstance(entry.get("id"), str)]
    if any(looks_like_llama_cpp(entry) for entry in entries):
        slot = props_window(await ask("/props", None))
        if slot is not None:  # one model, served with this window under any name
            return dict.fromkeys([*ids, model] if model else ids, slot)
        said = {str(entry.get("id")): served_window(entry) or trained_window(entry) for entry in entries}
        return {name: window for name, window in said.items() if window is not None}
    windows = {str(entry.get("id")): window for entry in entries if (window := served_window(entry)) is not None}
    if windows or not model:
        return windows
    return await _ollama_windows(model, ask)


async def _ollama_windows(model: str, ask: Ask) -> dict[str, int]:
    """What an Ollama server says of its models' windows: those loaded (`/api/ps`), and `model`'s `num_ctx`
    when it is not loaded; nothing from a server that is not Ollama (no `/api/ps`)."""
    ps = await ask("/api/ps", None)
    if not isinstance(ps, Mapping) or not isinstance(ps.get("models"), list):
        return {}
    windows = ollama_loaded_windows(ps)
    if model not in windows and (configured := ollama_show_window(await ask("/api/show", {"model": model}))):
        windows[model] = configured
    return windows


def server_root(base_url: str) -> str:
    """The server's root, where llama.cpp and Ollama answer their own routes: `base_url` without `/v1`."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/").removesuffix("/v1")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _count(value: object) -> int | None:
    """`value` when it is a positive whole number (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def served_window(entry: Mapping[str, Any]) -> int | None:
    """The window a `/v1/models` entry says its model is served with (None: it says none)."""
    meta = entry.get("meta")
    found = [meta.get("n_ctx") if isinstance(meta, Mapping) else None, *(entry.get(name) for name in WINDOW_FIELDS)]
    return next((count for value in found if (count := _count(value)) is not None), None)


def trained_window(entry: Mapping[str, Any]) -> int | None:
    """llama.cpp's `meta.n_ctx_train`: the window the model was trained with, an upper bound of the served one."""
    meta = entry.get("meta")
    return _count(meta.get("n_ctx_train")) if isinstance(meta, Mapping) else None


def looks_like_llama_cpp(entry: Mapping[str, Any]) -> bool:
    """An entry of llama.cpp's `/v1/models` (its `meta`, or `owned_by: llamacpp`): its `/props` says the window."""
    return isinstance(entry.get("meta"), Mapping) or entry.get("owned_by") == "llamacpp"


def props_window(props: object) -> int | None:
    """The window of one slot in llama.cpp's `/props` (see the module docstring)."""
    if not isinstance(props, Mapping):
        return None
    settings = props.get("default_generation_settings")
    slot = _count(settings.get("n_ctx")) if isinstance(settings, Mapping) else None
    return slot if slot is not None else _count(props.get("n_ctx"))


def ollama_loaded_windows(ps: object) -> dict[str, int]:
    """Model name -> the window it is loaded with, from Ollama's `/api/ps` (a `name:latest` also as `name`)."""
    models = ps.get("models") if isinstance(ps, Mapping) else None
    windows: dict[str, int] = {}
    for model in models if isinstance(models, list) else []:
        if not isinstance(model, Mapping) or (window := _count(model.get("context_length"))) is None:
            continue
        for key in ("name", "model"):
            if isinstance(name := model.get(key), str) and name:
                windows[name] = window
                windows.setdefault(name.removesuffix(":latest"), window)
    return windows


def ollama_show_window(show: object) -> int | None:
    """`num_ctx` in the `parameters` of Ollama's `/api/show` (set in the model's Modelfile), if it is."""
    parameters = show.get("parameters") if isinstance(show, Mapping) else None
    if not isinstance(parameters, str):
        return None
    found = re.search(r"^\s*num_ctx\s+(\d+)\s*$", parameters, re.MULTILINE)
    return _count(int(found.group(1))) if found else None


@dataclass(frozen=True)
class Overflow:
    """A request refused for being longer than the window, and what the refusal said of the sizes."""

    window: int | None
    """The window in tokens, when the server said it."""
    prompt_tokens: int | None
    """The refused request's size in tokens, when the server said it."""


def context_overflow(body: object) -> Overflow | None:
    """The `Overflow` an error body (the `error` object, or the whole body) describes, None for other errors."""
    if isinstance(body, str):  # a server that answers in plain text
        body = {"message": body}
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]
    if not isinstance(body, Mapping):
        return None
    message = str(body.get("message") or "")
    codes = {str(body.get("code") or ""), str(body.get("type") or "")}
    if not codes & set(OVERFLOW_CODES) and not OVERFLOW_WORDS.search(message):
        return None
    window = _count(body.get("n_ctx")) or _number(WINDOW_IN_WORDS, message)
    return Overflow(window, _count(body.get("n_prompt_tokens")) or _number(PROMPT_IN_WORDS, message))


def _number(pattern: re.Pattern[str], text: str) -> int | None:
    found = pattern.search(text)
    return _count(int(found.group(1).replace(",", ""))) if found else None
