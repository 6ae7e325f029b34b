"""Provides the typed errors a model request can end with, each carrying a sentence a person can act on.

`user_message` is what the UI shows. It never contains the API key: messages are built from our own
words plus the endpoint and model names, and `redact` scrubs any server text we quote.
"""

from __future__ import annotations

from tui_agent.sanitize import replace_surrogates, sanitize

PREVIEW_CHARS = 80
"""Characters of a malformed chunk quoted in an error (sanitised: a server may send escape codes)."""


class LLMError(Exception):
    """A model request failed; `user_message` says what happened and what to do, `report` adds where."""

    def __init__(self, user_message: str) -> None:
        user_message = replace_surrogates(user_message)  # quoted server text may carry one (legal in JSON)
        super().__init__(user_message)
        self.user_message = user_message
        self.base_url: str | None = None
        """The endpoint the request went to (without credentials), set by the client."""
        self.request_id: str | None = None
        """The server's id for the failed request (`x-request-id`), when it sent one: support desks ask for it."""

    @property
    def report(self) -> str:
        """`user_message`, then on a line of its own the endpoint and request id: what is shown and stored."""
        facts = [f"endpoint {self.base_url}"] if self.base_url else []
        if self.request_id:
            facts.append(f"request id {self.request_id}")
        return "\n".join([self.user_message, " · ".join(facts)]) if facts else self.user_message


class AuthenticationFailedError(LLMError):
    """The server rejected the API key (401/403)."""


class ModelNotFoundError(LLMError):
    """The server does not know the model or the endpoint path (404)."""


class RateLimitedError(LLMError):
    """The server kept answering 429; `retry_after` is its last suggested wait in seconds, if any."""

    def __init__(self, user_message: str, retry_after: float | None = None) -> None:
        super().__init__(user_message)
        self.retry_after = retry_after


class ServerError(LLMError):
    """The server failed (5xx, or an error sent inside the stream)."""


class ConnectionFailedError(LLMError):
    """The server could not be reached (refused, DNS, TLS, timeout before any reply)."""


class StreamStalledError(LLMError):
    """The stream sent nothing new for longer than the stall timeout."""


class StreamTruncatedError(LLMError):
    """The stream ended (or the connection closed) before the server said the reply was finished."""


class MalformedResponseError(LLMError):
    """The server answered with something that is not a chat-completions reply (HTML, bad JSON, bad bytes)."""


def redact(text: str, secret: str | None) -> str:
    """Return `text` with `secret` (and its long prefixes) replaced, so quoted server text cannot leak a key."""
    if not secret:
        return text
    text = text.replace(secret, "[redacted]")
    if len(secret) >= 12:
        # Servers often echo a shortened key ("sk-abc...xyz"); hide any 8-character slice of it too.
        for start in range(len(secret) - 7):
            piece = secret[start : start + 8]
            if piece in text:
                text = text.replace(piece, "[redacted]")
    return text


def preview(text: str) -> str:
    """The start of what a server sent, safe to show: control sequences removed, quoted."""
    shown = sanitize(text[: PREVIEW_CHARS * 4]).strip()
    return repr(shown if len(shown) <= PREVIEW_CHARS else shown[: PREVIEW_CHARS - 1] + "…")


def bytes_preview(error: UnicodeDecodeError) -> str:
    """Where the bytes stopped being UTF-8, as escapes: the bytes before the first bad one, and it."""
    start = max(0, error.start - 24)
    before, bad = error.object[start : error.start], error.object[error.start : error.start + 8]
    return f"the first bad bytes, after {before!r}: {bad!r}"


class RequestRejectedError(LLMError):
    """The server refused the request itself (400, 413, 422: too long a context, a bad parameter)."""


class ContextTooLongError(RequestRejectedError):
    """The request is longer than the context window the server serves (a 400 saying so: see
    `tui_agent.llm.served_context.context_overflow`); what it said of the sizes, when it did."""

    def __init__(self, user_message: str, *, window: int | None = None, prompt_tokens: int | None = None) -> None:
        super().__init__(user_message)
        self.window = window
        """The served window in tokens."""
        self.prompt_tokens = prompt_tokens
        """The refused request's size in tokens."""
