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


FIRST_PAINT_MODULES = "tui_agent.cli, tui_agent.launch, tui_agent.ui.app"
"""What `tui-agent` imports before its first frame."""
AFTER_PAINT_PACKAGES = ("pydantic", "openai", "anthropic", "aiosqlite", "markdown_it", "mcp", "mcp_types", "httpx2")
"""Heavy packages the first frame must not wait for (the engine imports them after the paint)."""
AFTER_PAINT_MODULES = (
    "tui_agent.agent.events",
    "tui_agent.commander.events",
    "tui_agent.history.models",
    "tui_agent.ui.widgets.task_tree",
    "tui_agent.ui.screens.approval",
    "tui_agent.ui.widgets.messages",
    "tui_agent.ui.widgets.markdown_view",
    "tui_agent.ui.widgets.message_cursor",
    "tui_agent.ui.widgets.hover_bar",
    "tui_agent.ui.widgets.attachment_chips",
    "tui_agent.ui.widgets.welcome",
    "tui_agent.ui.widgets.pasted_path",
    "tui_agent.ui.screens.chat_branches",
    "tui_agent.ui.code_blocks",
    "tui_agent.ui.clipboard",
    "tui_agent.ui.screens.mcp",
    "tui_agent.prices",
)
"""Ours, loaded when first used: each is a few milliseconds of dataclasses or widget classes (the message
cursor, hover bar and attachment strip join the chat screen after the first frame: `LaterWidgets`)."""


def test_first_frame_does_not_import_the_engine() -> None:
    code = (
        f"import sys, {FIRST_PAINT_MODULES}; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({AFTER_PAINT_PACKAGES!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"the first frame waits for {out.stdout.strip()}"


def test_first_frame_leaves_events_and_later_widgets_for_later() -> None:
    code = f"import sys, {FIRST_PAINT_MODULES}; print(sorted(set(sys.modules) & set({AFTER_PAINT_MODULES!r})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"the first frame imports {out.stdout.strip()}"


def test_the_engine_leaves_the_mcp_sdk_to_a_background_thread() -> None:
    """Building the agent must not import the MCP SDK (a second or more): its servers start in the background.

    (httpx2 is not checked: openai needs it too, and the engine's modules, openai's included, are imported
    together, in a thread, by `tui_agent.boot.build_engine`.)"""
    code = (
        "import sys, tui_agent.agent.services, tui_agent.tools.mcp.servers, tui_agent.tools.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'mcp_types'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"the engine imports {out.stdout.strip()}"
