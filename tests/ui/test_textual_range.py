"""The Textual internals tui-agent relies on hold on every Textual `pyproject.toml` allows, not only the one the
dev extra pins: `tests/ui/test_textual_private.py` runs again on the lowest and the highest release of the range
(each downloaded from PyPI, put first on the path of a child pytest). And the one process-wide change, the
timer loop (`frames_on_the_next_tick`), is made only on a Textual whose loop it was written for: on any other,
Textual's own loop runs and `tui-agent doctor` says why.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest
import textual

ROOT = Path(__file__).resolve().parents[2]
CHECK = """
import inspect, json, textual
from importlib.metadata import version
from textual.timer import Timer
textuals = Timer._run
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.textual_private import timer_patch
TuiAgentApp(ScriptedBackend())
print(json.dumps({"textual": inspect.getfile(textual), "release": version("textual"),
                  "left_alone": Timer._run is textuals, "applied": timer_patch().applied,
                  "reason": timer_patch().reason}))
"""
"""Builds the app (which applies the patch, or not) on the Textual first on the path, and says what happened."""
THEN_THE_PRIVATES_TESTS = """
import sys, pytest
sys.stdout.flush()
sys.exit(pytest.main(["-q", "-n0", "-p", "no:randomly", "-p", "no:cacheprovider", "tests/ui/test_textual_private.py"]))
"""
"""Runs tests/ui/test_textual_private.py after `CHECK`, in the same child (its exit status is theirs)."""


def textual_range() -> str:
    """The Textual requirement of the package, e.g. `>=8.2.5,<8.3`."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (spec,) = [re.sub(r"\s", "", dep)[len("textual") :] for dep in project["dependencies"] if dep.startswith("textual")]
    return spec


def run(command: list[str], textual_dir: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`command` with `textual_dir`'s Textual in front of the installed one."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(textual_dir), str(ROOT)])}
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout, check=False)


def download(requirement: str, cache: Path) -> Path:
    """The Textual release `requirement` picks (PyPI's newest that fits), unpacked in `cache` (kept between runs;
    several workers may unpack the same release at once); a failed download fails."""
    fresh = Path(tempfile.mkdtemp(dir=cache))
    try:
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", str(fresh)]
        done = subprocess.run([*pip, requirement], capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, f"pip download {requirement} failed (PyPI is needed here):\n{done.stderr[-2000:]}"
        (wheel,) = fresh.glob("textual-*.whl")
        target = cache / wheel.stem
        if not (target / "textual").is_dir():
            with zipfile.ZipFile(wheel) as unpacked:
                unpacked.extractall(fresh / "unpacked")
            with contextlib.suppress(OSError):  # another worker's is there already
                (fresh / "unpacked").rename(target)
        return target
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


@pytest.fixture(scope="module")
def releases(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The lowest and the highest Textual release the package allows, each unpacked in a folder of its own
    (in pytest's cache, kept between runs; with `-p no:cacheprovider` in this run's temp folder, which the
    xdist workers share)."""
    if request.config.pluginmanager.has_plugin("cacheprovider"):
        cache = Path(request.config.cache.mkdir("textual-releases"))
    else:
        cache = tmp_path_factory.getbasetemp().parent / "textual-releases"
        cache.mkdir(exist_ok=True)
    spec = textual_range()
    lowest = re.search(r">=([\w.]+)", spec)
    assert lowest, f"pyproject.toml gives Textual no lower bound: {spec!r}"
    return {"lowest": download(f"textual=={lowest.group(1)}", cache), "highest": download(f"textual{spec}", cache)}


@pytest.mark.parametrize("end", ["lowest", "highest"])
def test_the_textual_privates_hold_at_each_end_of_the_allowed_range(end: str, releases: dict[str, Path]) -> None:
    folder = releases[end]
    release = folder.name.split("-")[1]  # the wheel's name: textual-8.2.8-py3-none-any
    if release == version("textual"):  # a fresh install's is the newest in range: no need to run them twice
        pytest.skip(f"Textual {release} is the one installed: tests/ui/test_textual_private.py runs on it here")
    # One child for both (each start imports Textual and tui-agent): the check's line first, then the tests.
    tests = run([sys.executable, "-c", CHECK + THEN_THE_PRIVATES_TESTS], folder)
    assert tests.stdout.startswith("{"), tests.stderr[-3000:]
    found = json.loads(tests.stdout.splitlines()[0])
    assert Path(found["textual"]).is_relative_to(folder), f"the child ran on another Textual: {found['textual']}"
    assert found["applied"] and not found["left_alone"], f"Textual {found['release']}: {found['reason']}"
    assert tests.returncode == 0, f"on Textual {found['release']}:\n{tests.stdout[-4000:]}"


def test_a_timer_loop_it_was_not_written_for_is_left_alone(tmp_path: Path) -> None:
    """A Textual whose `Timer._run` differs (here: the installed one with the fix docs/upstream/textual-timer.md
    proposes) keeps its own loop, and doctor says the patch is not applied."""
    changed = tmp_path / "textual"
    shutil.copytree(Path(inspect.getfile(textual)).parent, changed, ignore=shutil.ignore_patterns("__pycache__"))
    timer = changed / "timer.py"
    source = timer.read_text(encoding="utf-8")
    fixed = source.replace("count = int((now - start) / _interval + 1)", "count = int((now - start) / _interval)")
    assert fixed != source, "the installed Textual's timer loop is not the one this test changes"
    timer.write_text(fixed, encoding="utf-8")

    built = run([sys.executable, "-c", CHECK], tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    found = json.loads(built.stdout.splitlines()[-1])
    assert Path(found["textual"]).is_relative_to(tmp_path)
    assert found["left_alone"] and not found["applied"]
    assert "differs from the releases the patch was written for" in found["reason"]

    doctor = run([sys.executable, "-m", "tui_agent", "--offline", "doctor"], tmp_path)
    (line,) = [line for line in doctor.stdout.splitlines() if "  textual  " in line]
    assert line.startswith("warn") and "timer patch not applied" in line, doctor.stdout


def test_doctor_says_the_timer_patch_is_applied() -> None:
    doctor = run([sys.executable, "-m", "tui_agent", "--offline", "doctor"], ROOT / "no-such-folder")
    (line,) = [line for line in doctor.stdout.splitlines() if "  textual  " in line]
    assert line.startswith("ok") and f"Textual {version('textual')}: timer patch applied" in line, doctor.stdout
