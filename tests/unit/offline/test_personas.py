"""The offline model as a team member: the writer writes on the person's latest prompt and the critic asks for one
revision per run of the team, also in a session that had other turns before the team ran."""

from __future__ import annotations

from typing import Any

from tui_agent.offline.personas import persona_reply

WRITER = {"role": "system", "content": "You are a writer. Write a short post."}
CRITIC = {"role": "system", "content": "You are a demanding editor. Answer APPROVED when ready."}
EARLIER: list[dict[str, Any]] = [
    {"role": "user", "content": "ask the researcher about the weather in Paris"},
    {"role": "user", "content": "[assistant] Paris is sunny."},
    {"role": "user", "content": "[writer] ## Tea\n\nTea is worth a moment."},
    {"role": "assistant", "content": "APPROVED"},
]


def reply(system: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    found = persona_reply([system, *messages])
    assert found is not None
    return found.text


def test_the_writer_writes_on_the_latest_prompt_not_the_sessions_first() -> None:
    text = reply(WRITER, [*EARLIER, {"role": "user", "content": "write a short post about autumn"}])
    assert text.startswith("## Autumn\n") and "again" not in text


def test_the_critic_asks_for_a_revision_first_in_each_run_of_the_team() -> None:
    prompt = {"role": "user", "content": "write about autumn"}
    draft = {"role": "user", "content": "Review this draft:\n\n[writer] ## Autumn\n\nLeaves."}
    assert reply(CRITIC, [*EARLIER, prompt, draft]).startswith("One revision")
    revised = {"role": "user", "content": "Review this draft:\n\n[writer] ## Autumn, again\n\nLeaves fall."}
    assert (
        reply(CRITIC, [*EARLIER, prompt, draft, {"role": "assistant", "content": "One revision"}, revised])
        == "APPROVED"
    )


def test_the_writer_revises_its_post_for_the_persons_note_and_takes_a_new_topic_as_a_new_post() -> None:
    post = {"role": "assistant", "content": "## Tea\n\nTea is worth a moment."}
    prompt = {"role": "user", "content": "write a post about tea"}
    noted = reply(WRITER, [prompt, post, {"role": "user", "content": "[critic] One revision\n\nMention green tea"}])
    assert noted.startswith("## Tea, again\n") and noted.endswith("(As you asked: Mention green tea)\n")
    fresh = reply(WRITER, [prompt, post, {"role": "user", "content": "write a post about rain"}])
    assert fresh.startswith("## Rain\n")
