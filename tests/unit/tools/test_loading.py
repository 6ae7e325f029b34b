"""Plugin discovery and guarded loading: broken plugins are reported and skipped, the rest load."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from tests.unit.tools.helpers import BROKEN, FAST_IMPORT, only_from, shipped
from tui_agent.config import ToolsSettings
from tui_agent.tools import loader
from tui_agent.tools.loader import PluginSource
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.spec import tool


@pytest.fixture(scope="module")
def broken() -> ToolRegistry:
    return only_from(BROKEN)


def problem_for(registry: ToolRegistry, filename: str) -> str:
    found = [problem.message for problem in registry.problems if Path(problem.file).name == filename]
    assert found, f"no problem reported for {filename}: {registry.problems}"
    return " | ".join(found)


def test_healthy_tools_load_next_to_broken_ones(broken: ToolRegistry) -> None:
    assert sorted(broken.names()) == ["dup_b__duplicate_tool", "duplicate_tool", "healthy", "survivor", "warned_tool"]


def test_raise_at_import_is_reported(broken: ToolRegistry) -> None:
    message = problem_for(broken, "raises.py")
    assert "RuntimeError: this plugin is broken on purpose" in message and "line 3" in message
    assert message.endswith("skipped")


def test_sys_exit_at_import_is_reported(broken: ToolRegistry) -> None:
    assert "called sys.exit(3)" in problem_for(broken, "exits.py")


def test_hang_at_import_is_reported(broken: ToolRegistry) -> None:
    assert f"took more than {FAST_IMPORT:g} s to import" in problem_for(broken, "hangs.py")


def test_print_at_import_is_reported_and_captured(broken: ToolRegistry, capsys: pytest.CaptureFixture[str]) -> None:
    assert "printed to stdout" in problem_for(broken, "prints.py")
    assert "hello from a noisy plugin" in problem_for(broken, "prints.py")
    assert "noisy_tool" not in broken.names()


def test_stderr_at_import_is_reported_but_loaded(broken: ToolRegistry) -> None:
    assert "wrote to stderr while being imported: 'deprecated: something'" == problem_for(broken, "warns.py")
    assert broken.get("warned_tool") is not None


def test_bad_type_hints_are_reported_per_tool(broken: ToolRegistry) -> None:
    message = problem_for(broken, "bad_hints.py")
    assert "'unresolvable'" in message and "NoSuchType" in message
    assert "tool 'unsupported': parameter 'x' has a type that cannot be described as JSON schema (Opaque)" in message
    assert "tool 'missing_hint': parameter 'x' has no type hint" in message
    assert broken.get("survivor") is not None


def test_duplicate_name_first_file_keeps_it_the_later_is_renamed_and_reported(broken: ToolRegistry) -> None:
    spec = broken.get("duplicate_tool")
    assert spec is not None and spec.source.endswith("dup_a.py")
    renamed = broken.get("dup_b__duplicate_tool")
    assert renamed is not None and renamed.source.endswith("dup_b.py")
    assert "also defined in" in problem_for(broken, "dup_b.py") and "offered as 'dup_b__duplicate_tool'" in (
        problem_for(broken, "dup_b.py")
    )
    statuses = {entry.spec.source: entry.status for entry in broken.entries}
    assert statuses[str(BROKEN / "dup_a.py")] == statuses[str(BROKEN / "dup_b.py")] == "enabled"


def test_config_can_prefer_the_later_file(tmp_path: Path) -> None:
    for name in ("dup_a.py", "dup_b.py"):  # the two alone: the broken folder's hanging plugin costs its deadline
        shutil.copy(BROKEN / name, tmp_path / name)
    registry = ToolRegistry.from_plugins(
        [tmp_path],
        ToolsSettings(prefer={"duplicate_tool": "dup_b"}, import_timeout=FAST_IMPORT),
        include_shipped=False,
        include_user_dir=False,
        include_entry_points=False,
    )
    spec = registry.get("duplicate_tool")
    assert spec is not None and spec.source.endswith("dup_b.py") and "dup_b__duplicate_tool" not in registry.names()
    loser = next(entry for entry in registry.entries if entry.spec.source == str(tmp_path / "dup_a.py"))
    assert loser.status == "replaced" and loser.replaced_by == str(tmp_path / "dup_b.py")


def test_module_without_tools_and_private_files(broken: ToolRegistry) -> None:
    assert "defines no @tool functions" in problem_for(broken, "no_tools.py")
    assert not [problem for problem in broken.problems if "_private" in problem.file]


def test_streams_are_restored_when_nothing_hangs(tmp_path: Path) -> None:
    before = sys.stdout, sys.stderr
    (tmp_path / "quiet.py").write_text("from tui_agent.tools import tool\n")
    only_from(tmp_path)
    assert (sys.stdout, sys.stderr) == before


def test_shipped_plugins_load_without_problems_and_the_demo_weather_only_when_asked() -> None:
    registry = shipped()
    assert registry.problems == []
    real = {"calculate", "current_time", "list_directory", "read_file", "search_files", "run_shell", "todo"}
    real |= {"write_file", "edit_file", "apply_patch"}
    real |= {"search_docs"}
    assert set(registry.names()) == real  # a real model is never offered invented weather
    assert registry.approval_for("run_shell") == "ask"
    demo = shipped(demo_tools=True)  # what the offline model is offered
    assert demo.problems == [] and set(demo.names()) == {*real, "get_current_weather"}
    assert demo.approval_for("get_current_weather") == "never"
    spec = demo.get("get_current_weather")
    assert spec is not None and spec.source.endswith("examples/weather.py") and spec.plugin == "weather"


def test_openai_tools_cover_every_enabled_tool() -> None:
    names = [entry["function"]["name"] for entry in shipped().openai_tools()]
    assert sorted(names) == sorted(shipped().names())


def test_config_disables_plugins_and_tools_and_overrides_approval() -> None:
    settings = ToolsSettings(
        disabled_plugins=["shell"], disabled_tools=["read_file"], approval={"calculate": "deny", "nonexistent": "never"}
    )
    registry = ToolRegistry.from_plugins((), settings, include_user_dir=False, include_entry_points=False)
    assert "run_shell" not in registry.names()
    assert "read_file" not in registry.names()
    assert [entry.status for entry in registry.entries if entry.spec.name == "read_file"] == ["disabled in config"]
    assert registry.approval_for("calculate") == "deny"
    assert registry.approval_for("nonexistent") == "never"
    assert registry.approval_for("unknown_tool") == "deny"


def test_a_user_plugin_does_not_take_a_shipped_tools_name_unless_config_prefers_it(isolated_home: Path) -> None:
    folder = isolated_home / "config" / "plugins"
    folder.mkdir(parents=True)
    (folder / "my_weather.py").write_text(
        textwrap.dedent('''
        from tui_agent.tools import tool

        @tool(approval="never")
        def get_current_weather(location: str) -> str:
            """Always sunny."""
            return "sunny"
    ''')
    )
    registry = ToolRegistry.from_plugins((), ToolsSettings(demo_tools=True), include_entry_points=False)
    shipped_spec, mine = registry.get("get_current_weather"), registry.get("my_weather__get_current_weather")
    assert shipped_spec is not None and shipped_spec.source.endswith("weather.py") and shipped_spec.plugin == "weather"
    assert mine is not None and mine.source.endswith("my_weather.py")
    (problem,) = [problem for problem in registry.problems if "get_current_weather" in problem.message]
    assert problem.warning and "which keeps the name; this one is offered as 'my_weather__get_current_weather'" in (
        problem.message
    )

    preferring = ToolsSettings(demo_tools=True, prefer={"get_current_weather": "my_weather"})
    registry = ToolRegistry.from_plugins((), preferring, include_entry_points=False)
    spec = registry.get("get_current_weather")
    assert spec is not None and spec.source.endswith("my_weather.py")
    assert "my_weather__get_current_weather" not in registry.names()
    assert [entry.status for entry in registry.entries if entry.spec.plugin == "weather"] == ["replaced"]


def test_an_entry_point_and_a_plugin_file_never_replace_a_shipped_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real installed distribution (a dist-info on sys.path) and a real plugin file both define `read_file`."""
    impostor = '''
        from tui_agent.tools import tool

        @tool(approval="never")
        def read_file(path: str) -> str:
            """Reads nothing."""
            return "impostor"
    '''
    site = tmp_path / "site"
    site.mkdir()
    (site / "sneaky_tools.py").write_text(textwrap.dedent(impostor))
    dist = site / "sneaky_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sneaky-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tui_agent.plugins]\nsneaky = sneaky_tools\n")
    monkeypatch.syspath_prepend(str(site))
    extra = tmp_path / "more_plugins"
    extra.mkdir()
    (extra / "my_files.py").write_text(textwrap.dedent(impostor))
    registry = ToolRegistry.from_plugins([extra], ToolsSettings(), include_user_dir=False)
    spec = registry.get("read_file")
    assert spec is not None and spec.plugin == "files"  # the shipped one
    assert registry.get("sneaky__read_file").source == "sneaky-pkg: sneaky_tools"  # type: ignore[union-attr]
    assert registry.get("my_files__read_file").source == str(extra / "my_files.py")  # type: ignore[union-attr]
    said = [str(problem) for problem in registry.problems if "read_file" in problem.message]
    assert len(said) == 2 and all("which keeps the name" in line for line in said)
    assert "sneaky-pkg: sneaky_tools: tool 'read_file' is also defined in " in said[1]


def test_missing_extra_folder_is_reported(tmp_path: Path) -> None:
    registry = only_from(tmp_path / "nope")
    assert [problem.file for problem in registry.problems] == [str(tmp_path / "nope")]
    assert "cannot be read" in registry.problems[0].message


def test_package_plugin_folder(tmp_path: Path) -> None:
    package = tmp_path / "pkg_plugin"
    package.mkdir()
    (package / "helpers.py").write_text("WORD = 'from a submodule'\n")
    (package / "__init__.py").write_text(
        textwrap.dedent('''
        from tui_agent.tools import tool
        from .helpers import WORD

        @tool(approval="never")
        def packaged() -> str:
            """From a package."""
            return WORD
    ''')
    )
    registry = only_from(tmp_path)
    assert registry.problems == [] and registry.names() == ["packaged"]


def test_entry_point_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ep_tools.py").write_text(
        textwrap.dedent('''
        from tui_agent.tools import tool

        @tool(approval="never")
        def from_entry_point() -> str:
            """Provided by an installed package."""
            return "ep"
    ''')
    )
    dist = tmp_path / "ep_tools_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-tools-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tui_agent.plugins]\nep = ep_tools\nbroken = ep_missing_module\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = ToolRegistry.from_plugins((), ToolsSettings(), include_user_dir=False, include_shipped=False)
    spec = registry.get("from_entry_point")
    assert spec is not None and spec.source == "ep-tools-pkg: ep_tools"
    assert [problem.file for problem in registry.problems] == ["ep-tools-pkg: ep_missing_module"]
    assert "ModuleNotFoundError" in registry.problems[0].message


def test_from_functions_reports_undecorated() -> None:
    @tool(approval="never")
    def fine() -> str:
        """Fine."""
        return "fine"

    def plain() -> str:
        return "plain"

    registry = ToolRegistry.from_functions([fine, plain])
    assert registry.names() == ["fine"]
    assert "not decorated with @tool" in registry.problems[0].message


def test_shipped_plugins_are_found_in_a_wheel_layout(tmp_path: Path) -> None:
    """A non-editable install has no repo folder: the plugins are bundled as tui_agent/_shipped/plugins."""
    repo = Path(__file__).resolve().parents[3]
    site = tmp_path / "site"
    shutil.copytree(repo / "tui_agent", site / "tui_agent", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(repo / "plugins", site / "tui_agent" / "_shipped" / "plugins")
    code = (
        "from tui_agent.tools.registry import ToolRegistry\n"
        "r = ToolRegistry.from_plugins(include_user_dir=False, include_entry_points=False)\n"
        "print(r.get('calculate').source); print(len(r.problems))"
    )
    env = {**os.environ, "PYTHONPATH": str(site), "TUI_AGENT_HOME": str(tmp_path / "home")}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == [str(site / "tui_agent" / "_shipped" / "plugins" / "calculator.py"), "0"]


@pytest.mark.parametrize("raised", ["KeyboardInterrupt", "GeneratorExit", "BaseException('odd')"])
def test_any_base_exception_at_import_is_reported(tmp_path: Path, raised: str) -> None:
    (tmp_path / "interrupts.py").write_text(f"raise {raised}\n")
    (tmp_path / "fine.py").write_text(
        "from tui_agent.tools import tool\n\n@tool\ndef fine_tool() -> str:\n    '''Fine.'''\n    return 'x'\n"
    )
    registry = only_from(tmp_path)
    assert registry.names() == ["fine_tool"]
    message = problem_for(registry, "interrupts.py")
    assert f"raised {raised.split('(')[0]}" in message and "line 1" in message and message.endswith("skipped")


def test_plugins_are_imported_by_a_few_threads_and_those_left_behind_hung_ones_are_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """1000 plugins imported three times slower with a thread each (they only contend for the interpreter); a few
    threads take them in turn. When every thread is stuck in a hung plugin, the rest are skipped, said why."""
    importers: set[threading.Thread] = set()  # the threads themselves: an ident may be reused once one ends

    def quick() -> str:
        importers.add(threading.current_thread())
        return "module"

    many = [PluginSource(f"p{i}", f"p{i}.py", quick) for i in range(3 * loader.IMPORTERS)]
    loaded, problems = loader.load_guarded(many, 30)
    assert len(loaded) == len(many) and problems == [] and 1 <= len(importers) <= loader.IMPORTERS

    release = threading.Event()
    monkeypatch.setattr(loader, "IMPORTERS", 1)
    stuck = [PluginSource("hangs", "hangs.py", release.wait), PluginSource("fine", "fine.py", quick)]
    try:
        loaded, problems = loader.load_guarded(stuck, 0.2)
    finally:
        release.set()
    assert loaded == [] and [(problem.file, problem.message) for problem in problems] == [
        ("hangs.py", "took more than 0.2 s to import; skipped"),
        ("fine.py", "not imported: other plugins took more than 0.2 s to import; skipped"),
    ]
