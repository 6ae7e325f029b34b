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
from rich.control import strip_control_codes
from rich.markdown import CodeBlock
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Span, Text

Run = tuple[str, Style | None]
"""A token's text on one line, and its style (None: unstyled, as Rich leaves a token whose style is null)."""


class _Syntax(Syntax):
    """Rich's `Syntax` with lines that fit made directly (see the module's docstring)."""

    def _get_syntax(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        background = self._get_base_style()
        _, pad_right, _, pad_left = self.padding
        width = options.max_width - pad_left - pad_right
        ends_on_nl, code = self._process_code(self.code)
        lines = None if self._drawn_otherwise(width) else self._lines(code, ends_on_nl)
        if lines is None:
            yield from super()._get_syntax(console, options)
            return
        wrapping = options.update(width=width, height=None, justify="left")
        new_line = Segment("\n")
        on_background = background.__add__  # what `render_lines(..., style=background)` does to each segment
        unstyled = on_background(background)  # the line's own style, Rich's `Text.style`
        styles: dict[Style, Style] = {}
        for runs in lines:
            plain = "".join(text for text, _ in runs)
            cells = cell_len(plain)
            if cells > width:  # wrapped by Rich, from the `Text` its own highlighting makes
                line, offset = Text(plain, style=background, justify="left"), 0
                for text, style in runs:
                    if style is not None:
                        line.spans.append(Span(offset, offset + len(text), style))
                    offset += len(text)
                for wrapped in console.render_lines(line, wrapping, style=background, pad=True):
                    yield from wrapped
                    yield new_line
                continue
            # `Text.render`'s segments: one a styled token, the unstyled text between (and the padding) in one
            between = ""
            for text, style in runs:
                if style is None:
                    between += text
                    continue
                if between:
                    yield Segment(between, unstyled)
                    between = ""
                if (drawn := styles.get(style)) is None:
                    drawn = styles[style] = on_background(background + style)
                yield Segment(text, drawn)
            if between := between + " " * (width - cells):
                yield Segment(between, unstyled)
            yield new_line

    def _drawn_otherwise(self, width: int) -> bool:
        """Does Rich draw this block otherwise than a plain, wrapped one (or is there no room to draw it)?"""
        if self.line_numbers or self.line_range or self.indent_guides or not self.word_wrap or width <= 0:
            return True
        if self.code_width is not None or self.background_color is not None or self._stylized_ranges:
            return True
        return self._get_base_style().transparent_background

    def _lines(self, code: str, ends_on_nl: bool) -> list[list[Run]] | None:
        """The highlighted code's lines, as `Syntax.highlight` and `Text.split` make them; None when a token is
        empty but styled (Rich's text then has a span of no width, which splits a segment: its own path)."""
        style_for = self._theme.get_style_for_token
        lines: list[list[Run]] = [[]]
        for token_type, token in (self.lexer or self.default_lexer).get_tokens(code):
            content, style = strip_control_codes(token), style_for(token_type)
            if not content:
                if style:
                    return None
                continue
            first, *rest = content.split("\n")
            if first:
                lines[-1].append((first, style or None))
            for part in rest:
                lines.append([(part, style or None)] if part else [])
        if len(lines) > 1 and not lines[-1] and not ends_on_nl:
            lines.pop()  # the newline `_process_code` added ends the last line, and starts none
        return lines


class ChatCodeBlock(CodeBlock):
    """A fenced or indented code block, highlighted as Rich does (`_Syntax`)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield _Syntax(code, self.lexer_name, theme=self.theme, word_wrap=True, padding=1)
