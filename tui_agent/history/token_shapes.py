"""Provides `redact_token_shapes`: well-known credential formats found in any text, replaced by `[redacted]`.

A tool that reads a `.env` file, a shell call that exports a token, a model that repeats one: the
value is not one the environment told us about, but its shape gives it away. Each shape asks for a
realistic length (and, for the loose `sk-` prefix, a long random-looking run of letters and digits)
so that words such as `sk-learn` or `AKIA` alone are left alone.

Shapes: OpenAI and Anthropic keys (`sk-`, `sk-proj-`, `sk-ant-api03-`...), AWS access key ids
(`AKIA`/`ASIA` + 16), GitHub tokens (`ghp_ gho_ ghu_ ghs_ ghr_` + 36, `github_pat_`), Slack tokens
(`xoxa- xoxb- xoxp- xoxo- xoxs- xoxr-`), PEM private-key blocks (cut off ones too) and JSON Web Tokens.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

_EDGE = r"(?<![A-Za-z0-9_-])"
"""A token starts at a word edge: `task-sk-...` or `xghp_...` are not tokens."""
_SK_KEY = re.compile(_EDGE + r"sk-[A-Za-z0-9_-]{20,}")
_RANDOM_RUN = re.compile(r"(?=[A-Za-z0-9]{16})(?=[A-Za-z0-9]{0,15}[0-9])(?=[A-Za-z0-9]{0,15}[A-Za-z])")
"""Sixteen letters and digits in a row, both kinds among them: what a random key has and prose does not."""
_PEM = (
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
    r"(?:[^\"]{0,16384}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|[A-Za-z0-9+/=\s\\]*)"
)
PEM_BLOCK = re.compile(_PEM)
"""A PEM private-key block, the only shape that spans lines (all others are runs of characters that exclude
the newline). Its body stops at a quote, so in JSON text it cannot run past the end of its string, and at
16 KiB (a 4096-bit RSA key is about 3.3), so that a text full of headers without footers costs linear
time; an unterminated block is redacted as far as its base64 goes."""
PEM_HEADER = "-----BEGIN "
"""Where a PEM block can start."""
_SHAPES = re.compile(
    "|".join(
        [
            _EDGE + r"(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])",
            _EDGE + r"gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])",
            _EDGE + r"github_pat_[A-Za-z0-9_]{40,255}",
            _EDGE + r"xox[abposr]-[A-Za-z0-9-]{20,}",
            _PEM,
            _EDGE + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}",
        ]
    )
)
"""Every shape but `sk-` (checked by `_sk_key`)."""
_LEADS = ("AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", PEM_HEADER, "eyJ")
"""A literal every match of `_SHAPES` contains. Its edge lookbehind leaves the regex engine no prefix to skip
ahead by, so it tries every alternative at every position (~4 MB/s); looking for these first (a few substring
searches, over 10x faster) lets prose without them skip it: a reply's saves and a tool's result cost far less."""


def redact_token_shapes(text: str) -> str:
    """`text` with every credential-shaped token (see the module docstring) replaced by `[redacted]`."""
    if any(lead in text for lead in _LEADS):
        text = _SHAPES.sub(REDACTED, text)
    return _SK_KEY.sub(_sk_key, text) if "sk-" in text else text


def _sk_key(match: re.Match[str]) -> str:
    body = match.group()[3:]
    return REDACTED if _RANDOM_RUN.search(body) else match.group()
