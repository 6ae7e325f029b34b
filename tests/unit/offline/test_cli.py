"""`tui-agent serve` as a process: prints its base URL and answers on it."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import openai

from tui_agent.offline import cli

# Built from the offline module alone, so the test does not depend on other subcommands importing.
SERVE = (
    "import argparse, sys; from tui_agent.offline import cli; p = argparse.ArgumentParser(); "
    "cli.add_parser(p.add_subparsers(dest='command')); a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))"
)


def test_serve_is_registered_with_its_options() -> None:
    parser = argparse.ArgumentParser()
    cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", "--port", "0", "--scenario", "s.toml"])
    assert (args.host, args.port, args.scenario) == ("127.0.0.1", 0, "s.toml")


def test_serve_prints_a_base_url_that_answers(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text('{"replies": [{"text": "served"}]}')
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", "--scenario", str(scenario)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        base_url = line.rsplit(" ", 1)[-1].strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        client = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert reply.choices[0].message.content == "served"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_reports_a_bad_scenario_file(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", SERVE, "serve", "--scenario", str(tmp_path / "nope.toml")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 2
    assert "Cannot read scenario file" in out.stdout
