"""A growing text redacted a tail at a time equals the whole text redacted, and costs linear time."""

from __future__ import annotations

import random

import pytest

from tests.unit.history.test_token_shapes import GITHUB, OPENAI, PEM, PEM_CUT, SLACK
from tui_agent.history import stream_redaction
from tui_agent.history.redact import Redactor
from tui_agent.history.stream_redaction import StreamRedaction

SECRET = "hunter2-the-password"
MULTILINE = "line one of the key\nline two of the key"
PIECES = [
    SECRET,
    MULTILINE,
    OPENAI,
    GITHUB,
    SLACK,
    PEM,
    PEM_CUT,
    "-----BEGIN ",
    "sk-",
    "\n",
    "\n\n",
    " ",
    "word ",
    '"',
    "[redacted]",
    "AAAA+/==\n",
]


def growing_text(seed: int, length: int) -> str:
    """Prose with secrets, tokens and PEM blocks (whole, cut off, or missing their footer) at random places."""
    rng = random.Random(seed)
    parts: list[str] = []
    while sum(map(len, parts)) < length:
        parts.append(rng.choice(PIECES) if rng.random() < 0.3 else "x" * rng.randint(1, 40))
    return "".join(parts)


def chunks(text: str, seed: int) -> list[str]:
    """`text` cut at random places (so secrets and blocks are cut across calls)."""
    rng = random.Random(seed)
    ends = sorted(rng.sample(range(1, len(text)), min(60, len(text) - 1))) + [len(text)]
    return [text[:end] for end in ends]


@pytest.mark.parametrize("seed", range(12))
def test_every_step_equals_redacting_the_whole_text(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_redaction, "MARGIN", 300)  # many cuts in a short text
    redactor = Redactor([SECRET, MULTILINE])
    redaction = StreamRedaction(redactor)
    for prefix in chunks(growing_text(seed, 40_000), seed):
        assert redaction.text(prefix) == redactor.text(prefix)


def test_a_pem_block_across_a_possible_cut_is_redacted_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_redaction, "MARGIN", 50)
    redactor = Redactor()
    redaction = StreamRedaction(redactor)
    body = "".join(f"QUJDRA{n:04d}==\n" for n in range(40))  # a key body of many lines, saved while it arrives
    text = "intro\n-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----\nafter\n" + "x\n" * 80
    for end in range(1, len(text), 7):
        assert redaction.text(text[:end]) == redactor.text(text[:end])
    assert redaction.text(text).startswith("intro\n[redacted]\nafter\n")


def test_a_text_that_does_not_extend_the_last_one_is_redacted_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_redaction, "MARGIN", 10)
    redactor = Redactor([SECRET])
    redaction = StreamRedaction(redactor)
    redaction.text("a line\n" * 20)
    assert redaction.text(f"{SECRET}\n" + "b" * 40) == "[redacted]\n" + "b" * 40


class CountingRedactor(Redactor):
    """Counts the characters each pass is given."""

    passed = 0

    def text(self, value: str) -> str:
        self.passed += len(value)
        return super().text(value)

    def known(self, value: str) -> str:
        self.passed += len(value)
        return super().known(value)


def test_the_cost_is_linear_in_the_length() -> None:
    redactor = CountingRedactor([SECRET])
    redaction = StreamRedaction(redactor)
    line = "- a line of a long list that keeps growing\n"
    text = ""
    for _ in range(200):  # 200 saves of a 2 MB reply
        text += line * 250
        redaction.text(text)
    assert redactor.passed < len(text) + 200 * (stream_redaction.MARGIN + len(line) * 250)
