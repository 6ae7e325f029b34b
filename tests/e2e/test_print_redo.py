"""`tui-agent -p` when things fail: retries said on stderr with the error's details, then `--continue --retry -p`
and `--continue --continue-reply -p` redo the session's last reply (real processes, a scripted offline model)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_print import run
from tui_agent.history.models import Message
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus

FAILING = {"status": 500, "retry_after": 0.01, "error_message": "the GPU caught fire"}


@pytest.fixture
def scripted(request: pytest.FixtureRequest) -> Iterator[BackgroundServer]:
    server = BackgroundServer(request.param)
    server.start()
    yield server
    server.stop()


def flags(server: BackgroundServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", "offline"]


async def tree(home: Path) -> list[Message]:
    store = await HistoryStore.open(home / "data" / "history.db")
    try:
        (session,) = await store.list_recent()
        return await store.tree(session.id)
    finally:
        await store.close()


async def stored(home: Path) -> list[Message]:
    store = await HistoryStore.open(home / "data" / "history.db")
    try:
        (session,) = await store.list_recent()
        return await store.load_tail(session.id, 100)
    finally:
        await store.close()


@pytest.mark.parametrize(
    "scripted", [{"replies": [FAILING, FAILING, FAILING, {"text": "Retried answer."}]}], indirect=True
)
async def test_a_failed_turn_says_its_retries_and_details_then_retry_redoes_it(
    scripted: BackgroundServer,
    isolated_home: Path,
) -> None:
    failed = run([*flags(scripted), "-p", "hello"], isolated_home)
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert "tui-agent: server error 500 — retrying in 1 s (1 of 2)" in failed.stderr
    assert "tui-agent: server error 500 — retrying in 1 s (2 of 2)" in failed.stderr
    assert "the GPU caught fire" in failed.stderr
    assert f"tui-agent: endpoint {scripted.base_url} · request id req_offline_3" in failed.stderr
    done = run([*flags(scripted), "--continue", "--retry", "-p"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Retried answer."
    user, old, new = await stored(isolated_home)
    assert old.status is MessageStatus.FAILED and old.replaced_by == new.id and new.content == "Retried answer."
    assert scripted.requests[-1].body is not None
    assert scripted.requests[-1].body["messages"][1:] == [{"role": "user", "content": "hello"}]  # after the agent's


@pytest.mark.parametrize(
    "scripted",
    [{"replies": [{"text": "Cut at the", "finish_reason": "length"}, {"text": " token limit."}]}],
    indirect=True,
)
async def test_continue_reply_prints_the_rest_into_a_sibling_of_the_cut_off_reply(
    scripted: BackgroundServer,
    isolated_home: Path,
) -> None:
    run([*flags(scripted), "-p", "tell me"], isolated_home)
    done = run([*flags(scripted), "--continue", "-p", "--continue-reply"], isolated_home)
    assert done.returncode == 0, done.stderr
    assert done.stdout == " token limit.\n"
    (_, reply) = await stored(isolated_home)
    assert reply.content == "Cut at the token limit." and reply.status is MessageStatus.COMPLETE
    cut_off = next(m for m in await tree(isolated_home) if m.role.value == "assistant" and m.id != reply.id)
    assert cut_off.parent_id == reply.parent_id and cut_off.content == "Cut at the"
    assert reply.usage is not None and reply.usage.completion_tokens == 2  # its own words
    assert cut_off.usage is not None and cut_off.usage.completion_tokens == 3  # kept with the cut-off reply


REDONE = {
    "strict": True,
    "replies": [
        {"text": "Cut at the", "finish_reason": "length"},
        {"text": " token limit."},
        FAILING,
        FAILING,
        FAILING,
        {"text": "Retried answer."},
        {"text": "Last."},
    ],
}


@pytest.mark.parametrize("scripted", [REDONE], indirect=True)
async def test_retry_and_continue_keep_the_old_replies_as_siblings_in_the_tree_and_the_model_gets_the_branch(
    scripted: BackgroundServer,
    isolated_home: Path,
) -> None:
    for args, status in (
        (["-p", "tell me"], 4),  # cut off
        (["--continue", "-p", "--continue-reply"], 0),
        (["--continue", "-p", "and then?"], 1),
        (["--continue", "--retry", "-p"], 0),
        (["--continue", "-p", "last one"], 0),
    ):
        done = run([*flags(scripted), *args], isolated_home)
        assert done.returncode == status, done.stderr
    assert scripted.requests[-1].body is not None
    assert scripted.requests[-1].body["messages"][1:] == [  # a strict server took it: one reply per prompt
        {"role": "user", "content": "tell me"},
        {"role": "assistant", "content": "Cut at the token limit."},
        {"role": "user", "content": "and then?"},
        {"role": "assistant", "content": "Retried answer."},
        {"role": "user", "content": "last one"},
    ]
    (session,) = {m.session_id for m in await stored(isolated_home)}
    shown = run(["sessions", "show", session[:10], "--tree"], isolated_home)
    assert shown.returncode == 0, shown.stderr
    lines = [line.rsplit("  ", 1)[0] for line in shown.stdout.splitlines()[1:]]  # each without its id
    assert lines == [
        "● user      tell me",
        "├─ ○ assistant Cut at the  [interrupted]",
        "└─ ● assistant Cut at the token limit.",
        "   ● user      and then?",
        "   ├─ ○ assistant (no text)  [failed, retried]",
        "   └─ ● assistant Retried answer.",
        "      ● user      last one",
        "      ● assistant Last.",
    ]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--retry", "-p"], "add --continue"),
        (["--continue", "--retry", "-p", "hi"], "take no prompt"),
        (["--continue", "--retry", "--continue-reply", "-p"], "not both"),
        (["--continue", "--retry"], "for -p runs"),
    ],
)
def test_flags_that_do_not_fit_are_a_sentence_and_status_2(isolated_home: Path, args: list[str], words: str) -> None:
    done = run(["--offline", *args], isolated_home)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr


def test_retry_with_no_reply_in_the_session_is_a_sentence(isolated_home: Path) -> None:
    done = run(["--offline", "--continue", "--retry", "-p"], isolated_home)
    assert done.returncode == 1 and "no reply to retry" in done.stderr and "Traceback" not in done.stderr
