"""The Agere tutorial's complete example, imports changed only, end to end against the offline model.

It runs as a script (its `__main__` block included) with real stdin and stdout: the user asks for the
weather in Paris, the model streams a `to_user` sentence and a tool call, the example runs its tool and
loops, the model answers from the result, then "exit" ends the commander with QUIT.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tui_agent.offline.server import BackgroundServer

EXAMPLE = Path(__file__).with_name("tutorial_example.py")
ROOT = Path(__file__).resolve().parents[3]


def run_example(server: BackgroundServer, typed: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-offline", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(EXAMPLE)], input=typed, capture_output=True, text=True, env=env, timeout=120, check=False
    )


# The tutorial's own loop sends two assistant messages in a row (its text, then its call), which only a
# lenient server such as OpenAI's accepts.
@pytest.mark.parametrize("offline_server", [{"strict": False}], indirect=True)
def test_weather_question_runs_the_tool_loop_and_quits(offline_server: BackgroundServer) -> None:
    result = run_example(offline_server, "What's the weather in Paris?\nexit\n")
    assert result.returncode == 0, result.stderr
    out = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert "Let me check the weather in Paris for you." in out
    assert re.search(r"Function call: get_current_weather\(location=Paris\); ID: call_[0-9a-f]{24}\.", out)
    assert "The weather in Paris is 22 °C right now." in out
    assert out.rstrip().endswith("QUIT")
    assert [r.outcome for r in offline_server.requests] == ["ok", "ok"]
    last_request = offline_server.requests[-1].body or {}
    assert [m["role"] for m in last_request["messages"]] == ["user", "assistant", "assistant", "tool"]


def test_a_plain_question_then_a_second_turn(offline_server: BackgroundServer) -> None:
    result = run_example(offline_server, "Tell me about asyncio\nand threads?\nexit\n")
    assert result.returncode == 0, result.stderr
    out = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert "## Tell me about asyncio" in out and "## And threads" in out
    assert out.rstrip().endswith("QUIT")
    assert len(offline_server.requests) == 2
