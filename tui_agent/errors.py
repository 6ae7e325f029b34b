"""Provides `UserError`: the base of every failure whose message is written for the person at the keyboard.

Domain code raises a subclass with a sentence that says what happened and what to do; the UI shows
`user_message` as it is (the app's one worker error handler does, for any worker), and anything else by
its type and text. Nothing here imports the UI.
"""

from __future__ import annotations


class UserError(Exception):
    """A failure the person can act on; `user_message` is the sentence to show them."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.user_message = message


class EngineUnavailableError(UserError, RuntimeError):
    """The engine (agent, history, tools) could not be built, so nothing that needs it can be done."""


def user_message(error: BaseException) -> str:
    """What to tell the person about `error`: its own sentence when it has one, else its text or type."""
    message = getattr(error, "user_message", None)  # errors of llm/ and tools/ carry one without the base
    return message if isinstance(message, str) and message else str(error) or type(error).__name__
