"""Provides `ChatCodeBlock`: Rich's markdown code block, drawn with the same segments at a lower cost.

Rich wraps every line of a code block on its own (`Console.render_lines` of one `Text`: wrapping, justifying,
joining, then cropping), about half of what a code block costs; a 30 KB block took ~0.5 s. A line that fits
the block's width is not wrapped, so its segments are the line's own, padded to the width, in the block's
background: those are made directly here. Lines that do not fit, and blocks Rich draws differently (line
numbers, a range, indent guides, a transparent background), take Rich's own path. Tests compare the two.

Imported when the first reply is drawn, as `markdown_rich` is.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock
from rich.segment import Segment
from rich.syntax import Syntax


class _Syntax(Syntax):
    """Rich's `Syntax` with lines that fit made directly (see the module's docstring)."""

    def _get_syntax(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        background = self._get_base_style()
        if self.line_numbers or self.line_range or self.indent_guides or not self.word_wrap:
            yield from super()._get_syntax(console, options)
            return
        if self.code_width is not None or background.transparent_background:
            yield from super()._get_syntax(console, options)
            return
        _, pad_right, _, pad_left = self.padding
        width = max(0, options.max_width - pad_left - pad_right)
        ends_on_nl, code = self._process_code(self.code)
        wrapping = options.update(width=width, height=None, justify="left")
        new_line = Segment("\n")
        on_background = background.__add__  # what `render_lines(..., style=background)` does to each segment
        for line in self.highlight(code).split("\n", allow_blank=ends_on_nl):
            cells = cell_len(line.plain)
            if cells > width:
                for wrapped in console.render_lines(line, wrapping, style=background, pad=True):
                    yield from wrapped
                    yield new_line
                continue
            line.append(" " * (width - cells))  # as justifying it "left" pads it, in the line's own style
            for segment in line.render(console):
                yield Segment(segment.text, on_background(segment.style))
            yield new_line


class ChatCodeBlock(CodeBlock):
    """A fenced or indented code block, highlighted as Rich does (`_Syntax`)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield _Syntax(code, self.lexer_name, theme=self.theme, word_wrap=True, padding=1)
