"""Provides the history errors; each carries a sentence a person can act on as its message."""

from __future__ import annotations


class HistoryError(Exception):
    """Something went wrong with the history database; `user_message` says what to do."""

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


class SchemaTooNewError(HistoryError):
    """The database was written by a newer tui-agent; it is refused, never rewritten."""


class SessionNotFoundError(HistoryError):
    """No session has that id (or the prefix matches none or several)."""


class MessageNotFoundError(HistoryError):
    """No message has that id."""
