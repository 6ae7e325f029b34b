"""`tui-agent plugins`: lists tools and load problems, exits 0 even when plugins failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.tools.helpers import BROKEN
from tui_agent.cli import main


@pytest.fixture
def fast_imports(isolated_home: Path) -> None:
    config = isolated_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[tools]\nimport_timeout = 2.0\napproval = { calculate = "deny" }\n')


def test_json_lists_tools_and_problems(fast_imports: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins", "--plugins", str(BROKEN), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    tools = {tool["name"]: tool for tool in report["tools"] if tool["status"] == "enabled"}
    assert {"get_current_weather", "calculate", "run_shell", "healthy", "survivor"} <= set(tools)
    assert tools["run_shell"]["approval"] == "ask"
    assert tools["calculate"]["approval"] == "deny"
    assert tools["healthy"]["source"] == str(BROKEN / "good.py")
    failed = {Path(problem["file"]).name for problem in report["problems"]}
    assert {"raises.py", "exits.py", "hangs.py", "prints.py", "bad_hints.py", "dup_b.py"} <= failed


def test_table_output(fast_imports: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins", "--plugins", str(BROKEN)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["TOOL", "APPROVAL", "STATUS", "SOURCE"]
    assert "get_current_weather" in out
    assert "problem(s) while loading plugins:" in out
    assert f"- {BROKEN / 'raises.py'}: raised RuntimeError" in out


def test_the_demo_weather_is_listed_for_the_offline_model_only_unless_the_config_says(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def listed() -> set[str]:
        assert main(["plugins", "--json"]) == 0
        return {tool["name"] for tool in json.loads(capsys.readouterr().out)["tools"]}

    assert "get_current_weather" in listed()  # no endpoint: the offline model answers, and demos the weather
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("TUI_AGENT_MODEL", "llama3.2")
    real = listed()
    assert "get_current_weather" not in real and {"read_file", "run_shell"} <= real  # a real model: real tools
    config = isolated_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("[tools]\ndemo_tools = true\n")
    assert "get_current_weather" in listed()
    assert main(["config", "show"]) == 0
    assert "\ndemo_tools = true\n" in capsys.readouterr().out
    (config / "config.toml").write_text('[tools]\ndemo_tools = "yes"\n')  # invalid: "auto" stands, no tool is lost
    invalid = listed()
    assert "get_current_weather" not in invalid and {"read_file", "run_shell"} <= invalid


def test_no_problems_with_shipped_plugins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "problem" not in out and "run_shell" in out


def test_top_level_plugins_flag_is_honoured(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "extra.py").write_text(
        "from tui_agent.tools import tool\n\n@tool\ndef extra_tool() -> str:\n    '''Extra.'''\n    return 'x'\n"
    )
    assert main(["--plugins", str(tmp_path), "plugins", "--json"]) == 0
    names = [tool["name"] for tool in json.loads(capsys.readouterr().out)["tools"]]
    assert "extra_tool" in names


def test_table_output_carries_no_escape_or_bidi_control(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "loud.py").write_text("raise RuntimeError('\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J title \\u202egnp.exe')\n")
    assert main(["plugins", "--plugins", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "loud.py" in out and "title" in out
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
