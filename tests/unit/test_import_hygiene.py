"""Domain packages must be importable without Textual (the UI is the only package that imports it)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui_agent.cli import imported_uncollected

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


PRINT_RUN_LEAVES_OUT = ("textual", "rich", "markdown_it", "mcp", "mcp_types", "anthropic", "pathspec", "yaml")
"""Packages a `-p` turn on the offline model must not import: the UI's, the MCP SDK (no servers configured),
the retrieval index's (until `search_docs` runs), PyYAML (the shipped skill's front matter is plain lines)."""
PRINT_RUN_LEAVES_OUT_OF_OURS = (
    "tui_agent.ui",
    "tui_agent.launch",
    "tui_agent.retrieval.index",
    "tui_agent.agent.rewind",
    "tui_agent.tools.mcp.server",
    "tui_agent.tools.mcp.overview",
    "tui_agent.tools.mcp.resource_picks",
    "tui_agent.tools.mcp.elicitation",
    "tui_agent.agent.team",
    "tui_agent.agent.summariser",
    "tui_agent.sandbox.launch",
    "tui_agent.sandbox.landlock",
    "tui_agent.sandbox.bubblewrap",
    "tui_agent.sandbox.seatbelt",
)
"""Ours, never used by a `-p` turn with an empty home: the UI, the retrieval index, rewinding, an MCP server's
machinery (no servers configured: the server list alone is built), a team's (no team asked for), the summariser
(no compaction), the sandbox's
launcher and backends (no command ran)."""
PRINT_RUN = """
import atexit, gc, sys

OURS = LEAVES_OUT_OF_OURS

def report():
    tops = sorted({name.split(".")[0] for name in sys.modules} & set(LEAVES_OUT))
    ours = sorted(name for name in sys.modules if name in OURS or name.startswith(tuple(f"{o}." for o in OURS)))
    landlock = sys.modules.get("tui_agent.sandbox.landlock")  # its C library: `ldconfig -p` in a child process
    looked_up = landlock is not None and landlock._c_library.cache_info().currsize > 0
    print("REPORT", tops, ours, gc.isenabled(), gc.get_freeze_count() > 0, looked_up, file=sys.stderr)

atexit.register(report)
sys.argv = ["tui-agent", "--offline", "-p", "hi"]
from tui_agent.cli import main
raise SystemExit(main())
"""


def test_a_print_run_imports_only_what_it_uses(tmp_path: Path) -> None:
    """One real `tui-agent --offline -p hi` (its own process, started as the script starts it): the reply is
    printed; nothing of the UI, the MCP SDK or an MCP server's machinery, the retrieval index, rewinding or PyYAML
    was imported, plugins' threads included; what start-up made was frozen out of the collector's sight, which is
    back on for the turn (`cli.main`); and no C library was looked up for the sandbox (no command ran)."""
    code = PRINT_RUN.replace("LEAVES_OUT_OF_OURS", repr(PRINT_RUN_LEAVES_OUT_OF_OURS)).replace(
        "LEAVES_OUT", repr(PRINT_RUN_LEAVES_OUT)
    )
    env = {**os.environ, "TUI_AGENT_HOME": str(tmp_path / "home")}
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TUI_AGENT_MODEL"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "offline model" in done.stdout
    assert "REPORT [] [] True True False" in done.stderr, done.stderr


def test_a_call_of_main_leaves_the_collector_unfrozen() -> None:
    """A test or program calling `main` keeps its objects collectable: only the process's own run freezes."""
    frozen = gc.get_freeze_count()
    assert imported_uncollected("tui_agent.paths", freeze=False).__name__ == "tui_agent.paths"
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
