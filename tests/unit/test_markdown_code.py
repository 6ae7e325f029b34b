"""A code block is drawn with exactly the segments (text and style) Rich's own markdown draws, at any width."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment

from tui_agent.ui.widgets.markdown_rich import ChatMarkdown

CONSOLE = Console(width=80, color_system="truecolor", force_terminal=True)
CODE = st.text(alphabet="ab x=()'\"#:\t\\\n中é\x1b", max_size=120)
"""Code with strings, comments, tabs, escapes, wide and control characters: lines that fit and lines that wrap."""


def segments(markdown: Markdown, width: int) -> list[list[Segment]]:
    rendered = CONSOLE.render(markdown, CONSOLE.options.update_width(width))
    return list(Segment.split_and_crop_lines(rendered, width, include_new_lines=False))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(CODE, st.sampled_from(["python", "js", "text", "nosuchlanguage", ""]), st.integers(3, 70))
@example('def f(x):\n\tif x:  # hi\n        return """a\nb"""  \n' + "y = 1 + " * 20 + "\n\n\n", "python", 40)
@example("", "python", 10)
def test_code_blocks_are_drawn_as_rich_draws_them(code: str, language: str, width: int) -> None:
    fenced = f"Before.\n\n```{language}\n{code}\n```\n\n    indented {code[:20]!r}\n"
    assert segments(ChatMarkdown(fenced), width) == segments(Markdown(fenced), width)
