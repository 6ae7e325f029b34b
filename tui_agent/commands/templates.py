"""Provides `split_arguments` and `fill`: how a command's text gets the words typed after its name.

As in Claude Code and opencode: `$ARGUMENTS` is everything typed after the name, `$1`, `$2`... the words one by
one (quotes keep a phrase together), and a command whose front matter names its `arguments` also takes `$name`
for each. A command whose text has no placeholder gets what was typed after it, on a line of its own
(`ARGUMENTS: ...`, Claude Code's way), so nothing typed is lost.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

ARGUMENTS = "$ARGUMENTS"


def split_arguments(raw: str) -> list[str]:
    """The words of `raw`, quotes keeping a phrase together; an unclosed quote splits on spaces alone."""
    try:
        return shlex.split(raw)
    except ValueError:  # an unclosed quote: the words as typed
        return raw.split()


def placeholders(names: Sequence[str]) -> re.Pattern[str]:
    """The placeholders a command's text may hold: `$ARGUMENTS`, `$1`..., and `$name` for each of `names`."""
    named = "".join(f"|{re.escape(name)}" for name in sorted(names, key=len, reverse=True))
    return re.compile(rf"\$(ARGUMENTS|\d+{named})(?![A-Za-z0-9_])")


def takes_arguments(text: str, names: Sequence[str] = ()) -> bool:
    """Whether `text` has a placeholder for what is typed after the command's name."""
    return placeholders(names).search(text) is not None


def fill(text: str, raw: str, names: Sequence[str] = ()) -> str:
    """`text` with its placeholders replaced by `raw` (what was typed after the name) and its words, in one pass
    (an argument holding `$1` is not filled again); `raw` on a line of its own when there is no placeholder."""
    raw = raw.strip()
    words = split_arguments(raw)
    pattern = placeholders(names)

    def value(found: re.Match[str]) -> str:
        key = found.group(1)
        if key == "ARGUMENTS":
            return raw
        index = int(key) - 1 if key.isdigit() else list(names).index(key)
        return words[index] if 0 <= index < len(words) else ""

    filled, count = pattern.subn(value, text)
    if count == 0 and raw:
        return f"{filled.rstrip()}\n\nARGUMENTS: {raw}"
    return filled
