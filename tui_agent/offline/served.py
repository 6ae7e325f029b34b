"""Provides how the offline model says its context window, in the words of the server it imitates
(`Scenario.serves_like`), and how it refuses a request over it (`Scenario.enforce_window`).

- `generic`: `context_length` in each `/v1/models` entry (OpenRouter, LM Studio); too long is OpenAI's 400.
- `openai`: nothing in `/v1/models`; too long is a 400 with code `context_length_exceeded`.
- `vllm`: `max_model_len` in each entry; too long is vLLM's 400 ("This model's maximum context length is...").
- `llama.cpp`: entries `owned_by: llamacpp` whose `meta.n_ctx_train` is the trained window (`train_window`), and
  `GET /props` saying the served one in `default_generation_settings.n_ctx`; too long is llama.cpp's 400
  `exceed_context_size_error` with `n_ctx` and `n_prompt_tokens`.
- `ollama`: nothing in `/v1/models`; `GET /api/ps` lists the models loaded (`ollama_loaded`, or those chat
  requests have used) with their `context_length`, `POST /api/show` gives `num_ctx` in `parameters`
  (`ollama_num_ctx`) and the trained window in `model_info`.
  Ollama cuts a long prompt rather than refusing it: `enforce_window` refuses nothing there.

With `enforce_window`, a request whose prompt (its words, as usage counts them) reaches `context_window` is
refused, and a reply is cut (`finish_reason: length`) where prompt and reply fill the window, as llama.cpp
stops generating when its context is full.
"""

from __future__ import annotations

import json
from typing import Any

from tui_agent.offline.frames import error_body
from tui_agent.offline.scenario import Scenario


def models_entry(scenario: Scenario, model: str) -> dict[str, Any]:
    """One `/v1/models` entry, as the imitated server writes it."""
    entry: dict[str, Any] = {"id": model, "object": "model", "created": 0, "owned_by": "offline"}
    window = scenario.context_window
    match scenario.serves_like:
        case "generic" if window is not None:
            entry["context_length"] = window
        case "vllm" if window is not None:
            entry.update(owned_by="vllm", max_model_len=window)
        case "llama.cpp":
            entry.update(owned_by="llamacpp", meta={"vocab_type": 2, "n_ctx_train": scenario.train_window})
        case "ollama":
            entry["owned_by"] = "library"
    return entry


def root_answer(
    scenario: Scenario, method: str, path: str, body: bytes, used: frozenset[str] = frozenset()
) -> dict[str, Any] | None:
    """The JSON the imitated server answers at `path` beside `/v1` (`/props`, `/api/ps`, `/api/show`), None
    when it has no such route (`used`: the models chat requests have asked for, which Ollama has loaded)."""
    window = scenario.context_window
    if scenario.serves_like == "llama.cpp" and method == "GET" and path == "/props":
        return {"default_generation_settings": {"n_ctx": window or scenario.train_window}, "total_slots": 1}
    if scenario.serves_like != "ollama":
        return None
    if method == "GET" and path == "/api/ps":
        loaded = scenario.models if scenario.ollama_loaded else sorted(used)
        return {"models": [{"name": m, "model": m, "context_length": window or 4096} for m in loaded]}
    if method == "POST" and path == "/api/show":
        asked = _json(body).get("model")
        parameters = f"num_ctx {window}\nstop <|end|>" if window and scenario.ollama_num_ctx else "stop <|end|>"
        info = {"general.architecture": "llama", "llama.context_length": scenario.train_window}
        return {"model": asked, "parameters": parameters, "model_info": info}
    return None


def too_long(scenario: Scenario, prompt_tokens: int) -> dict[str, Any] | None:
    """The 400 body refusing a prompt of `prompt_tokens` over the window (None: it fits, or none is enforced)."""
    window = scenario.context_window
    if not scenario.enforce_window or window is None or prompt_tokens < window or scenario.serves_like == "ollama":
        return None
    if scenario.serves_like == "llama.cpp":
        said = (
            f"request ({prompt_tokens} tokens) exceeds the available context size ({window} tokens), try increasing it"
        )
        return {
            "error": {
                "code": 400,
                "message": said,
                "type": "exceed_context_size_error",
                "n_prompt_tokens": prompt_tokens,
                "n_ctx": window,
            }
        }
    if scenario.serves_like == "vllm":
        said = (
            f"This model's maximum context length is {window} tokens. However, you requested {prompt_tokens} "
            "tokens in the messages, Please reduce the length of the messages."
        )
        return {"object": "error", "message": said, "type": "BadRequestError", "param": None, "code": 400}
    said = (
        f"This model's maximum context length is {window} tokens. However, your messages resulted in "
        f"{prompt_tokens} tokens. Please reduce the length of the messages."
    )
    body = error_body(400, said)
    body["error"].update(code="context_length_exceeded", param="messages")
    return body


def reply_room(scenario: Scenario, prompt_tokens: int) -> int | None:
    """Tokens a reply may have before the window is full (None: no window is enforced)."""
    if not scenario.enforce_window or scenario.context_window is None or scenario.serves_like == "ollama":
        return None
    return max(scenario.context_window - prompt_tokens, 1)


def _json(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
