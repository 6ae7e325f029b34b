"""Credential-shaped text is redacted wherever it appears; words that merely look alike are left alone."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tui_agent import paths
from tui_agent.history import token_shapes
from tui_agent.history.redact import Redactor
from tui_agent.history.token_shapes import redact_token_shapes

# Built from pieces so that no secret scanner mistakes this file for a leak.
OPENAI = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4"
OPENAI_PROJECT = "sk-proj-" + "Ab3_dE9fGh1JkLmN0pQrStUvWxYz12345678-abcDEF0987654321_xyzXYZ"
ANTHROPIC = "sk-ant-api03-" + "Zk29dj3kd9slqpXm2Lq8vN4rT6yU1wE3-aB_cD5fG7hJ9kL0mN2pQ4rS6tU8vW0xY2z" + "AA"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SESSION = "ASIA" + "Y34FZKBOKMUTVV7A"
GITHUB = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
GITHUB_KINDS = [prefix + "_" + "x9Y8w7V6u5T4s3R2q1P0o9N8m7L6k5J4i3H2" for prefix in ("gho", "ghu", "ghs", "ghr")]
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW"
SLACK = "xoxb-" + "17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy"
SLACK_KINDS = [f"xox{kind}-" + "2-1234567890-abcdefABCDEF123456" for kind in "aposr"]
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
    + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\nProc-Type: 4,ENCRYPTED\n"
    "Z2FyYmFnZQ==\n-----END RSA PRIVATE KEY-----"
)
PEM_CUT = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nb3Blbn"

TOKENS = [
    OPENAI,
    OPENAI_PROJECT,
    ANTHROPIC,
    AWS,
    AWS_SESSION,
    GITHUB,
    *GITHUB_KINDS,
    GITHUB_PAT,
    SLACK,
    *SLACK_KINDS,
    JWT,
    PEM,
    PEM_CUT,
]


@pytest.mark.parametrize("token", TOKENS)
def test_every_shape_is_redacted_in_context(token: str) -> None:
    for text in (token, f"export TOKEN={token}\n", f'{{"key": "{token}"}}', f"before ({token}) after"):
        redacted = redact_token_shapes(text)
        assert "[redacted]" in redacted
        assert token not in redacted and token[-12:].strip() not in redacted


def test_surroundings_survive() -> None:
    assert redact_token_shapes(f"export GITHUB_TOKEN={GITHUB}; echo ok") == "export GITHUB_TOKEN=[redacted]; echo ok"
    assert redact_token_shapes(f"{PEM}\nnext line") == "[redacted]\nnext line"


NEAR_MISSES = [
    "pip install scikit-learn; sk-learn is the usual nickname",
    "sk-this-is-not-a-real-key-at-all-just-words",
    "task-sk-a1B2c3D4e5F6g7H8i9J0k1L2",  # not at a word edge
    "sk-a1B2c3D4e5",  # too short
    "AKIA is how AWS key ids start; AKIA1234 is too short; AKIAIOSFODNN7EXAMPLEXYZ is too long",
    "ghp_short and gho_ and github_pat_tooShort",
    "xoxb-short, xoxz-17653672481-19874698323-pdFZKVeTuE8s (xoxz is not a kind)",
    "eyJhbGciOiJIUzI1NiJ9 alone is just base64 of a header; a.b.c is not a JWT",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----",
    "The session id is 3f2a9c1b7d4e5f60a1b2c3d4e5f60718 and the commit is 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_are_left_alone(text: str) -> None:
    assert redact_token_shapes(text) == text


def test_the_config_switch_turns_shapes_off_but_not_known_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-my-own-env-key-123456")
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    assert Redactor.default(config).text(f"{GITHUB} sk-my-own-env-key-123456") == "[redacted] [redacted]"
    config.write_text("redact_secrets = false\n", encoding="utf-8")
    assert Redactor.default(config).text(f"{GITHUB} sk-my-own-env-key-123456") == f"{GITHUB} [redacted]"
    config.write_text('redact_secrets = "maybe"\n', encoding="utf-8")  # not false: the safe default holds
    assert Redactor.default(config).text(GITHUB) == "[redacted]"


def test_the_redactor_replaces_lone_surrogates_in_text_and_json(tmp_path: Path) -> None:
    redactor = Redactor()
    assert redactor.text("a\ud800") == "a\ufffd"
    assert redactor.json({"k\udc00": ["v\ud800", {"t": GITHUB}]}) == {"k\ufffd": ["v\ufffd", {"t": "[redacted]"}]}


def test_the_quick_look_for_leads_changes_no_result() -> None:
    # `redact_token_shapes` skips the shapes' regex for text without one of their leading literals: over
    # prose, tokens, near misses and pieces of both glued together, it must say what the regex alone says.
    def regex_alone(text: str) -> str:
        text = token_shapes._SHAPES.sub(token_shapes.REDACTED, text)
        return token_shapes._SK_KEY.sub(token_shapes._sk_key, text)

    pieces = [*TOKENS, *NEAR_MISSES, "high through", "AKI", "A", "gh", "_", "xo", "x", "ey", "J", "-----", " ", "\n"]
    rng = random.Random(28)
    for _ in range(2000):
        text = "".join(rng.choice(pieces)[: rng.randrange(1, 90)] for _ in range(rng.randrange(1, 6)))
        assert redact_token_shapes(text) == regex_alone(text), text
