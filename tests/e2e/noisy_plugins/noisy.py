"""A plugin that writes around the UI: to file descriptors 1 and 2 at import and when its tool runs, and
through a child process that inherits them (tests/e2e/test_terminal_output.py)."""

from __future__ import annotations

import os
import subprocess

from tui_agent.tools import tool

os.write(1, b"IMPORT-NOISE-1\n")
os.write(2, b"IMPORT-NOISE-2\n")


@tool(approval="never")
def make_noise() -> str:
    """Write markers straight to the process's stdout and stderr, and from a child process."""
    os.write(1, b"GARBAGE-FD-1\n")
    os.write(2, b"GARBAGE-FD-2\n")
    subprocess.run(["echo", "CHILD-ECHO"], check=True)
    return "the noise is made"
