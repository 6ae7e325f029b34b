"""The offline model's summary of a conversation: an earlier summary sent as one message with the prompt after
it (a strict chat template's merge, as text or as parts when the prompt carries an image) still counts that
prompt."""

from __future__ import annotations

from tui_agent.agent.conversation import SUMMARY_HEADING, strict_history
from tui_agent.offline.summary import summary_of

EARLIER = f"{SUMMARY_HEADING}\n\nThe person asked 1 thing:\n- When is the launch?"
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


def test_a_prompt_merged_after_an_earlier_summary_is_counted_as_text_or_as_parts() -> None:
    ask = {"role": "user", "content": "Summarise the conversation so far."}
    for prompt in ("What is on it?", [{"type": "text", "text": "What is on it?"}, IMAGE]):
        merged = strict_history([{"role": "user", "content": EARLIER}, {"role": "user", "content": prompt}])
        said = summary_of([*merged, {"role": "assistant", "content": "A picture."}, ask])
        assert said.startswith("The person asked 1 thing:\n- What is on it?\nBefore that: Summary of"), said
        assert "When is the launch?" in said
