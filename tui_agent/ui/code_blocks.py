"""Provides the code blocks of a reply's Markdown (`code_blocks`) and where each one is drawn among the reply's
rendered lines (`code_rows`), for the message cursor: `tab` moves between them, `y` copies one.

The blocks come from markdown-it (the parser the reply is drawn with), so a fence inside a list or a quote
counts and a fence inside a code block does not. Finding a block's rows matches its lines against the
rendered text (Rich draws a code block one row per line, between two padding rows).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CodeBlock:
    """One code block: its language (the fence's info, may be empty) and its code."""

    language: str
    code: str

    @property
    def lines(self) -> list[str]:
        return self.code.removesuffix("\n").split("\n")


def code_blocks(markdown: str) -> list[CodeBlock]:
    """The code blocks of `markdown`, in order (fenced and indented)."""
    if "```" not in markdown and "~~~" not in markdown and "    " not in markdown:
        return []
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(markdown)
    return [
        CodeBlock(token.info.strip().split(" ")[0] if token.info else "", token.content)
        for token in tokens
        if token.type in ("fence", "code_block")
    ]


def code_rows(shown: list[str], block: CodeBlock, after: int = 0) -> tuple[int, int] | None:
    """Rows [start, end) of `shown` (the reply's rendered lines) that draw `block`, looking from row `after`;
    None when they cannot be found (the block is then copied all the same, just not highlighted)."""
    lines = block.lines
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None
    wanted = lines[first].strip()
    for row in range(after, len(shown)):
        if _draws(shown[row].strip(), wanted):
            start = max(row - first - 1, 0)  # the padding row above
            return start, min(row - first + len(lines) + 1, len(shown))
    return None


def _draws(row: str, line: str) -> bool:
    """The rendered `row` shows code `line` (whole, or cut at the reply's width)."""
    return row == line or (len(row) >= 8 and line.startswith(row))
