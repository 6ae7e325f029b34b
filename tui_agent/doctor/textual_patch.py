"""Provides the check of the one change tui-agent makes to Textual for the whole process (its timer loop)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from tui_agent.doctor.check import Check


def check_textual_patch() -> Check:
    """Whether the app replaces Textual's `Timer._run` (frames after a pause on the next tick), and why (not)."""
    from tui_agent.ui.textual_private import timer_patch  # imports Textual: only when doctor runs

    try:
        release = f"Textual {version('textual')}"
    except PackageNotFoundError:
        release = "Textual (release unknown)"
    patch = timer_patch()
    if patch.applied:
        return Check("ok", "textual", f"{release}: timer patch applied; {patch.reason}")
    return Check(
        "warn",
        "textual",
        f"{release}: timer patch not applied, Textual's own loop runs; {patch.reason}",
        "nothing breaks: a key pressed just after a frame may be drawn a frame (17 ms) later; "
        "a tui-agent release that knows this Textual applies it again",
    )
