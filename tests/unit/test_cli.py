"""The `tui-agent` entry point: --version and --help work from a fresh install."""

from __future__ import annotations

import subprocess
import sys

from tui_agent import __version__


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui_agent", *args], capture_output=True, text=True, timeout=60)


def test_version() -> None:
    out = run_cli("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"tui-agent {__version__}"


def test_help_lists_options() -> None:
    out = run_cli("--help")
    assert out.returncode == 0
    assert "--offline" in out.stdout and "--base-url" in out.stdout
