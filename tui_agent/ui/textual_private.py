"""Provides the few Textual internals tui-agent still needs, each with the reason no public API will do.

Nothing else in the project (product or tests) touches a Textual private name: it goes through here, and
`tests/ui/test_textual_private.py` fails when a Textual release moves or changes one of these, which is what
lets `pyproject.toml` accept a range of Textual releases instead of one.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.notifications import Notification
from textual.widgets._toast import Toast, ToastRack

__all__ = ["Toast", "ToastRack", "notifications"]

# `Toast` and `ToastRack`: Textual mounts a toast rack on every screen (docked at the top) and shows each
# notification as a toast in it, but exports neither class. The chat screen narrows the rack to the
# conversation (`ChatScreen.fit_toasts`), and tests read the toasts a person sees.


def notifications(app: App[Any]) -> list[Notification]:
    """The notifications the app shows now, oldest first.

    Textual keeps them in `App._notifications` and offers no getter; tests read them to check what the
    person was told (toasts are only mounted when the test app runs with `notifications=True`).
    """
    return list(app._notifications)
