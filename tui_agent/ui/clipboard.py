"""Provides `copy_text`: text to the clipboard through the terminal (OSC 52, which works over ssh and in tmux
with `set-clipboard on`) and, where there is one, the system clipboard (pbcopy, wl-copy, xclip or xsel), and
the sentence that says what was copied ("copied 12 lines").

A missing or failing clipboard program is never an error: the terminal's copy was made already, and the
program runs in a thread of its own with a time limit, so a stuck one cannot hold up the UI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from typing import Any

from textual.app import App

CLIPBOARD_TIMEOUT = 2.0
"""Seconds a clipboard program may take to take the text."""


def clipboard_command(environ: dict[str, str] | None = None, platform: str = sys.platform) -> list[str] | None:
    """The system clipboard's program for this machine, if one is installed (None: only the terminal's copy)."""
    env = os.environ if environ is None else environ
    candidates: list[list[str]] = []
    if platform == "darwin":
        candidates.append(["pbcopy"])
    if env.get("WAYLAND_DISPLAY"):
        candidates.append(["wl-copy"])
    if env.get("DISPLAY"):
        candidates += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    return next((command for command in candidates if shutil.which(command[0])), None)


def _run(command: list[str], text: str) -> None:
    try:  # xclip and wl-copy stay behind to serve the selection: their output is not waited for
        subprocess.run(
            command,
            input=text.encode("utf-8", errors="replace"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=CLIPBOARD_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        pass  # the terminal's copy stands


def copied(text: str, what: str = "") -> str:
    """`copied 12 lines` (`what`: `copied the code block, 12 lines`)."""
    lines = text.count("\n") + (0 if text.endswith("\n") else 1) if text else 0
    amount = f"{lines} line{'' if lines == 1 else 's'}"
    return f"copied {what}, {amount}" if what else f"copied {amount}"


def copy_text(app: App[Any], text: str, what: str = "") -> str:
    """Put `text` on the clipboard (terminal and system) and say so in a notification; returns the sentence."""
    app.copy_to_clipboard(text)  # OSC 52
    if (command := clipboard_command()) is not None:
        threading.Thread(target=_run, args=(command, text), name="clipboard", daemon=True).start()
    sentence = copied(text, what)
    app.notify(sentence.capitalize() + ".", timeout=3, markup=False)
    return sentence
