"""Domain packages must be importable without Textual (the UI is the only package that imports it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

DOMAIN_PACKAGES = [
    "tui_agent.commander",
    "tui_agent.llm",
    "tui_agent.offline",
    "tui_agent.tools",
    "tui_agent.history",
    "tui_agent.agent",
    "tui_agent.config",
    "tui_agent.paths",
    "tui_agent.cli",
]


@pytest.mark.parametrize("module", DOMAIN_PACKAGES)
def test_domain_module_does_not_import_textual(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"{module} pulled in {out.stdout.strip()}"


def test_hygiene_check_detects_textual() -> None:
    """The check itself can fail: the UI package does import Textual."""
    code = "import sys, textual; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
