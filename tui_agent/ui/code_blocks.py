"""Provides the code blocks of a reply's Markdown (`code_blocks`) and where each one is drawn among the reply's
rendered lines (`code_rows`), for the message cursor: `tab` moves between them, `y` copies one.

The blocks come from markdown-it (the parser the reply is drawn with), so a fence inside a list or a quote
counts and a fence inside a code block does not. Finding a block's rows matches its lines against the
rendered text (Rich draws a code block between two padding rows, a long line wrapped over several rows).
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
    from markdown_it import MarkdownIt  # deferred: markdown-it loads with the first code block, not at start-up

    tokens = MarkdownIt("commonmark").parse(markdown)
    return [
        CodeBlock(token.info.strip().split(" ")[0] if token.info else "", token.content)
        for token in tokens
        if token.type in ("fence", "code_block")
    ]


def code_rows(shown: list[str], block: CodeBlock, after: int = 0) -> tuple[int, int] | None:
    """Rows [start, end) of `shown` (the reply's rendered lines) that draw `block` with its padding rows, looking
    from row `after`; None when they cannot be found (the block is copied all the same, just not highlighted)."""
    lines = block.lines
    for row in range(after, len(shown)):
        if not shown[row].strip() and lines[0].strip():
            continue
        end = _drawn_until(shown, row, lines)
        if end is not None:
            return max(row - 1, 0), min(end + 1, len(shown))  # with the padding rows above and below
    return None


def _drawn_until(shown: list[str], row: int, lines: list[str]) -> int | None:
    """The row after `lines` when they are drawn from `row` on, each over one row or wrapped over several."""
    for line in lines:
        wanted, got = "".join(line.split()), ""
        while True:
            if row >= len(shown):
                return None
            got += "".join(shown[row].split())
            row += 1
            if got == wanted:
                break
            if not wanted.startswith(got) or not got:
                return None
    return row
