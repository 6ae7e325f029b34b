"""Provides `MarkdownView`: markdown as one widget whose cost does not grow with what was rendered before.

The text is split into *settled* pieces and a live tail. A piece is a complete top-level block (a blank
line outside a code fence, followed by an unindented line), or, when one block keeps growing past
`SPLIT` characters (a long list, code block, table or paragraph), a part of it cut where the block can go
on: at a list item, at a line of code (the code block is closed for the piece and opened again for the
rest, its padding rows trimmed), at a table row (the header is repeated for the rest and its rows
trimmed), or at a line or space of anything else. So each update re-renders a tail of bounded size and
the cost of a reply grows linearly with it. Pieces are rendered only when a frame shows them (an
estimate of their height stands in until then), so a reply arriving in one 5 MB piece costs what the
screen shows; settling is itself done in slices of `SLICE` seconds, leaving the event loop to keys, and
while such a backlog settles the view is shown (laid out, the pieces on screen rendered) every
`BACKLOG_DRAW` seconds rather than after every slice, its end once it is all settled.
Cut blocks are exact for bullet lists and code (colours aside); an ordered list's numbers may be padded
differently from piece to piece, a cut table's columns are sized per piece, and a cut paragraph starts
a new line at each cut. Frames draw only visible lines (line API), so one long reply, or a log of many,
costs one widget each. `freeze()` settles the tail.

Text selection (mouse drag, select all, Ctrl+C) works on the rendered lines: each line carries the offsets
Textual's selection needs, the selected span is drawn in the screen's selection style, and
`get_selection` returns the text as shown (a line API widget otherwise yields its CSS identifier).
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_right
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.theme import Theme
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from tui_agent.ui.citations import linked, may_cite
from tui_agent.ui.input_first import keys_waiting
from tui_agent.ui.widgets.markdown_cuts import SPLIT, SPLIT_OTHER, Cut, ends_with_rule, growing_cut, settled_boundary

GROWTH_STEP = 4
"""Lines a streaming view grows by at a time."""
SLICE = 0.012
"""Seconds of settling per turn of the event loop before yielding to it (keys, frames)."""
QUOTE_STYLE = {"markdown.block_quote": "italic"}
"""A quote (a sub-agent's answer passed on, most often) in the text's own colour: Rich's magenta is the error
colour's neighbour in most themes, and read as one."""
PREPARE_CHARS = 8000
"""Replies up to this long are rendered whole before they are mounted again (see `prepare`)."""
BACKLOG_DRAW = 0.5
"""While a backlog settles, the view asks for a frame, and renders the pieces frames show, at most this often
(seconds): the end of the settled text moves on every slice, and a frame after each (a layout of the screen,
~40 ms) with each new end rendered (~10 ms a piece, a few a screen) cost several times the settling itself,
for pieces scrolled past a moment later."""


@dataclass
class _Piece:
    """A settled part of the text, how to render it, and its lines once a frame needed them."""

    source: str
    follows: bool
    """Rendered after an earlier block (Rich's separator line first)."""
    kind: str = ""
    """"code"/"table" when the piece continues a block cut before it: rows to trim (see `Cut`)."""
    carry: str = ""
    """Source put in front of the piece (the block it continues began in an earlier piece)."""
    closing: str = ""
    """Source put after it (its block goes on in the next piece)."""
    cut: str = ""
    """The kind of the cut that ended it (its block goes on in the next piece)."""
    lines: list[Strip] | None = None
    height: int = 0
    """Its rendered height, or an estimate until it is rendered."""

    @property
    def made_of(self) -> tuple[str, bool, str, str]:
        """What its lines are rendered from: two pieces made of the same render alike (see `_render_source`)."""
        return (self.carry + self.source + self.closing, self.follows, self.kind, self.cut)


class MarkdownView(Widget):
    """Markdown text, appended to while it streams, drawn from cached lines."""

    DEFAULT_CSS = """
    MarkdownView { height: auto; }
    """

    def __init__(self, text: str = "", *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._text = text
        self._frozen = False
        self._width = -1
        self._styled: dict[int | str, Strip | Style] = {}
        """Settled lines with the widget's style applied, by line number (plus the style they used)."""
        self._backlog_shown, self._layout_owed, self._shown_height = 0.0, False, 0  # typed here; see `_reset`
        self._render_seconds = 0.0
        """Seconds spent rendering settled pieces since `take_render_seconds` was last called."""
        self._reset()
        self._line_style = Style()

    @property
    def text(self) -> str:
        """The markdown source shown so far."""
        return self._text

    @property
    def drawn(self) -> bool:
        """Every piece of the text is settled or in the tail (none waits for a slice of time)."""
        return not self._backlog

    def set_text(self, text: str) -> None:
        """Replace the shown text (an append when `text` extends the current one) and redraw."""
        if self._frozen or not text.startswith(self._text[: self._settled]):
            self._reset()  # settling again is a scan of the text; only what is shown is rendered again
        self._text = text
        self._tail_dirty = True
        self._update()

    def _update(self) -> None:
        width = self._width
        if width <= 0 or not self.is_attached:
            self.refresh(layout=True)
            return
        height, unchanged = self._height(), self._starts[-1]
        self._update_lines(width)
        if self._backlog:  # a slice of settling: shown now and then (`BACKLOG_DRAW`), not after every slice
            self._layout_owed = self._layout_owed or self._height() != height
            if self._shown_height and time.perf_counter() - self._backlog_shown < BACKLOG_DRAW:
                return
            self._show_backlog()
        else:
            self._shown_height = 0
        if self._height() != height or self._layout_owed:
            self._layout_owed = False
            self.refresh(layout=True)
        else:  # repaint only from the first line that can have changed: no layout, a small region
            width, height = self.size  # regions are in content coordinates
            self.refresh(Region(0, unchanged, width, max(height - unchanged, 1)))

    def take_render_seconds(self) -> float:
        """Seconds spent rendering settled pieces since the last call: what text set earlier cost afterwards (its
        pieces are rendered in turns of the loop of their own and in frames, not in `set_text`)."""
        seconds, self._render_seconds = self._render_seconds, 0.0
        return seconds

    def _show_backlog(self) -> None:
        """Let layouts see the height settled so far (until the next time, `BACKLOG_DRAW` from now)."""
        self._shown_height, self._backlog_shown = self._height(), time.perf_counter()

    def _height(self) -> int:
        lines = self._starts[-1] + len(self._tail)
        if self._frozen:
            return lines
        # While streaming, grow in steps of a few lines: each step is a layout of the whole screen,
        # so a reply gaining a line at a time would pay for one on almost every flush.
        return -(-(lines + 1) // GROWTH_STEP) * GROWTH_STEP

    def freeze(self) -> None:
        """The text is final: the tail settles too, and the view takes its exact height."""
        streaming_height = self._height()  # rounded up to a `GROWTH_STEP`: `_update` would compare exact with exact
        self._frozen = True
        self._tail_dirty = True
        self._update()
        if self._height() != streaming_height:
            self.refresh(layout=True)

    def thaw(self) -> None:
        """The text grows again (a reply being continued): back to rendering it as it streams."""
        self._frozen = False
        self._reset()
        self.refresh(layout=True)

    def _reset(self) -> None:
        self._settled = 0
        self._carry = ""
        """Source the tail needs in front (see `_Piece.carry`); `_carry_kind` says how its block was cut."""
        self._carry_kind = ""
        self._continues = False
        """The tail continues a block cut before it (no separator line in front)."""
        self._last_source = ""
        self._pieces: list[_Piece] = []
        self._starts = [0]
        """First line of each piece, and the total at the end."""
        self._tail: list[Strip] = []
        self._tail_dirty = True
        self._tail_made: tuple[tuple[str, bool, str, str], list[Strip]] | None = None
        """The tail last rendered, and what from: a piece settled from the same source takes its lines (at the
        end of a reply the tail settles as it is, and rendering it again cost a 30 KB code block's end ~40 ms)."""
        self._backlog = False
        self._backlog_drawn = 0.0
        """When a frame last rendered the pieces it shows during a backlog (see `BACKLOG_DRAW`)."""
        self._backlog_shown = 0.0
        """When a slice of a backlog last asked for a frame; `_layout_owed`: a slice since changed the height."""
        self._layout_owed = False
        self._shown_height = 0
        """The height a backlog last showed: what layouts get until it is shown again (others ask for frames too)."""
        self._settling = False
        self._rendering = False
        self._styled.clear()

    def prepare(self, width: int, *, first_rows: int = 0, last_rows: int = 0) -> bool:
        """Settle the text for `width` (content cells) now, and render it if it is of ordinary size, so the
        frame that first lays this out only arranges it (a long reply's pieces render when a frame shows
        them: rendering them all here would cost a page of long replies seconds). Of a long reply, the
        pieces in its first `first_rows` and last `last_rows` rows are rendered: the rows a page mounted
        above the view shows first (its top after a jump to the top, its end when scrolling up).

        Settling takes a slice of time (`SLICE`) per call: False when there is more to settle (call again
        after a turn of the event loop), True when done."""
        if self._backlog and width == self._width and self._settle(time.perf_counter() + SLICE):
            self._tail_dirty = True
        self._update_lines(width)
        if self._backlog:
            return False
        if len(self._text) <= PREPARE_CHARS:
            first_rows = last_rows = self._starts[-1]
        index = 0
        while index < len(self._pieces) and self._starts[index] < first_rows:
            self._render_piece(index)
            index += 1
        index = len(self._pieces) - 1
        while index >= 0 and self._starts[-1] - self._starts[index + 1] < last_rows:
            self._render_piece(index)
            index -= 1
        return True

    def _render_markdown(self, source: str, width: int) -> list[Strip]:
        console = self.app.console
        options = self.app.console_options.update(highlight=False, width=width, height=None).update_width(width)
        # deferred: markdown-it and Rich's renderers load at the first reply, not at start-up
        from tui_agent.ui.widgets.markdown_rich import ChatMarkdown

        with console.use_theme(Theme(QUOTE_STYLE)):  # looked up while the lines are made, inside this block
            segments = console.render(ChatMarkdown(source), options)
            lines = [Strip(line) for line in Segment.split_and_crop_lines(segments, width, include_new_lines=False)]
        # Citations (`notes/guide.md:5-8`, as search_docs gives them) of files that exist open the passage on a click.
        return [linked(line) for line in lines] if may_cite(source) else lines

    def _update_lines(self, width: int) -> None:
        """Bring the pieces up to date for `width`: settle new ones (for a slice of time), re-render the tail."""
        width = max(width, 1)
        if width != self._width:
            self._width = width
            self._styled.clear()
            self._tail_made = None
            for piece in self._pieces:
                piece.lines, piece.height = None, self._estimate(piece)
            self._restart()
            self._tail_dirty = True
        # With a backlog, settling goes on in its own turns of the loop (`_settle_more`), not in the frames
        # (layout and painting call this too) or flushes that come in between: each would add a slice.
        if not self._settling and self._settle(time.perf_counter() + SLICE):
            self._tail_dirty = True
            self._render_end_soon()
        if self._backlog:
            self._tail = []
            if not self._settling:
                self._settling = True
                self.set_timer(0.001, self._settle_more, name="markdown-settle")
        elif self._tail_dirty:
            tail = self._text[self._settled :]
            piece = _Piece(tail, self._follows(), self._carry_kind, self._carry)
            self._tail = self._render_source(piece, follows=piece.follows) if tail.strip() else []
            if self._tail:
                self._tail_made = (piece.made_of, self._tail)
            self._tail_dirty = False

    def _render_end_soon(self) -> None:
        if not self._rendering and not self._frozen:
            self._rendering = True
            # A callback of the event loop, not a message: a widget handles all its queued messages in one turn
            # of the loop, so a chain of pieces (each ~4 ms) and a flush went by without a key or frame between.
            asyncio.get_running_loop().call_soon(self._render_end)

    def _render_end(self) -> None:
        """While it streams, render the newest settled piece a screen can show that is not yet, in a turn of
        the loop of its own (then the next): otherwise the frame that first shows it renders it, and a key
        waiting for that frame waits for the rendering too (~10 ms a piece)."""
        self._rendering = False
        if self._width <= 0 or self._frozen or self._backlog or not self.is_attached:
            return  # with a backlog, the end moves on: rendered once it stops (`_settle` calls this again)
        if keys_waiting(self.app):  # a key first: the frame showing it renders what it shows, this goes on after
            self._rendering = True
            self.call_after_refresh(self._render_end)
            return
        starts, top = self._starts, self._starts[-1] - self.app.size.height  # a screenful above the tail
        index = len(self._pieces) - 1
        while index >= 0 and starts[index + 1] > top and self._pieces[index].lines is not None:
            index -= 1
        if index < 0 or starts[index + 1] <= top:
            return
        if self._render_piece(index):
            self._styled.clear()  # lines after it moved
            self.refresh(layout=True)
        self._render_end_soon()

    def _settle_more(self) -> None:
        """The next slice of a backlog (a reply that arrived faster than one slice settles)."""
        self._settling = False
        self._update()

    def _settle(self, deadline: float) -> bool:
        """Settle pieces until `deadline`; True if any was. Sets `_backlog` when time ran out first."""
        settled_any = False
        while True:
            self._backlog = time.perf_counter() > deadline
            if self._backlog:
                return settled_any
            tail = self._text[self._settled : self._settled + 4 * SPLIT_OTHER]
            source = self._carry + tail
            if (quick := self._quick_cut(source)) is not None:
                self._add_piece(source[: quick.end], quick)
                settled_any = True
                continue
            boundary = settled_boundary(source, len(self._carry) + SPLIT // 2) if tail else 0
            if not boundary and len(source) > SPLIT:
                boundary = settled_boundary(source)  # small blocks before a big one: the tail is just that one
            if boundary > SPLIT:
                boundary = self._before_big_block(source[:boundary], boundary)
            block = source[:boundary] if boundary > SPLIT else source  # a long block, however it arrived
            cut = growing_cut(block) if not boundary or boundary > SPLIT else None
            if cut is not None and len(self._carry) < cut.end < (boundary or len(source)):
                self._add_piece(source[: cut.end], cut)
            elif boundary > len(self._carry):
                self._add_piece(source[:boundary], Cut(boundary, goes_on=False))
            elif self._frozen and self._settled + len(tail) >= len(self._text) and tail.strip():
                self._add_piece(source, Cut(len(source), goes_on=False))
            else:
                return settled_any
            settled_any = True

    def _quick_cut(self, source: str) -> Cut | None:
        """The cut of a long list or code block found in its first few KB, when no block ends there: the cut
        the full search below would make, without scanning to the block's end (tens of KB) for each piece.
        Only the text up to the cut's line is searched for a block's end (the rest of the few KB was searched
        for each piece too: a third of settling a long list's time)."""
        carry = len(self._carry)
        near = source[: carry + 3 * SPLIT]
        if len(near) == len(source) or (cut := growing_cut(near)) is None or not carry < cut.end < len(near):
            return None
        line_end = near.find("\n", cut.end)  # the cut's line too: a block beginning there ends the one before
        if line_end == -1 or settled_boundary(near[: line_end + 1], carry + 1):
            return None
        return cut

    def _before_big_block(self, block: str, boundary: int) -> int:
        """The small blocks in front of a long block (a heading before a long list) settle on their own, so
        that the long block is alone next time round, to be cut as it would be while it streams; if there
        are none, `boundary`."""
        earlier = settled_boundary(block)
        return earlier if earlier > len(self._carry) else boundary

    def _add_piece(self, source: str, cut: Cut) -> None:
        """Settle `source` (the carry, then text up to the cut) as a piece; the tail goes on after it."""
        piece = _Piece(
            source[len(self._carry) :],
            self._follows(),
            self._carry_kind,
            self._carry,
            cut.closing,
            cut.kind if cut.goes_on else "",
        )
        self._settled += len(piece.source)
        if piece.source.strip():
            if self._tail_made is not None and self._tail_made[0] == piece.made_of:
                piece.lines = self._tail_made[1]  # the tail it was, rendered already
            piece.height = self._estimate(piece) if piece.lines is None else len(piece.lines)
            self._pieces.append(piece)
            self._starts.append(self._starts[-1] + piece.height)
            self._last_source = piece.carry + piece.source
        self._carry, self._carry_kind = cut.carry, cut.kind
        self._continues = cut.goes_on

    def _follows(self) -> bool:
        """Does the next block get Rich's separator line? Not at the top, nor after a horizontal rule, nor
        when it continues a block cut before it."""
        if not self._pieces or self._continues:
            return False
        return not ends_with_rule(self._last_source)

    def _estimate(self, piece: _Piece) -> int:
        """Rows `piece` will take: close enough to scroll by until a frame shows it and it is rendered."""
        width = max(self._width - 3, 1)
        return sum(-(-len(line) // width) or 1 for line in piece.source.splitlines()) + piece.follows

    def _restart(self) -> None:
        starts = self._starts = [0]
        for piece in self._pieces:
            starts.append(starts[-1] + piece.height)

    def _render_piece(self, index: int) -> bool:
        """Render piece `index` if it is not; True if its height changed (the lines after it moved)."""
        piece = self._pieces[index]
        if piece.lines is not None:
            return False
        start = time.perf_counter()
        piece.lines = self._render_source(piece, follows=piece.follows)
        self._render_seconds += time.perf_counter() - start
        if len(piece.lines) == piece.height:
            return False
        delta, piece.height = len(piece.lines) - piece.height, len(piece.lines)
        starts = self._starts
        for later in range(index + 1, len(starts)):
            starts[later] += delta
        return True

    def _render_source(self, piece: _Piece, *, follows: bool) -> list[Strip]:
        """Render a piece; one cut from a list, code block or table loses the rows its cuts add: the blank
        line Rich puts before a list or table, a code block's padding, a table's repeated header and edges."""
        width = self._width
        lines = self._render_block(piece.carry + piece.source + piece.closing, width, follows=follows)
        top = 0
        if piece.kind in ("code", "list"):
            top = 1
        elif piece.kind == "table":
            top = len(self._render_markdown(piece.carry, width)) - 1  # all of the header but its bottom edge
        bottom = 1 if piece.cut in ("code", "table") else 0
        return lines[top : len(lines) - bottom]

    def _render_block(self, source: str, width: int, *, follows: bool) -> list[Strip]:
        """Render blocks as they would look after earlier blocks: Rich puts the separator line before a
        paragraph, heading or code block itself, so a one-line stand-in paragraph is rendered and cut off."""
        if not follows:
            return self._render_markdown(source, width)
        return self._render_markdown(f"x\n\n{source}", width)[1:]

    def _all_lines(self) -> list[Strip]:
        """Every line, each piece rendered (for copying and checking: not on a frame's path)."""
        self._update_lines(self.size.width)
        while self._backlog:
            self._settle(float("inf"))
            self._tail_dirty = True
            self._update_lines(self.size.width)
        if any([self._render_piece(index) for index in range(len(self._pieces))]):
            self._styled.clear()  # lines after a piece whose estimate was replaced have moved
            self.refresh(layout=True)
        return [line for piece in self._pieces for line in piece.lines or ()] + self._tail

    def shown_text(self) -> str:
        """Plain text of every rendered line at the current width (what a person sees, scrolled or not)."""
        return "\n".join(line.text.rstrip() for line in self._all_lines())

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected part of the text as shown (rendered lines, as copied from a terminal)."""
        lines = [line.text.rstrip() for line in self._all_lines()]
        return selection.extract("\n".join(lines)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._styled.clear()  # cached lines carry the old highlight
        self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._update_lines(width)
        if not self._backlog:
            self._shown_height = 0
            return self._height()
        if not self._shown_height:
            self._show_backlog()
        return self._shown_height

    def render_lines(self, crop: Region) -> list[Strip]:
        self._line_style = self.rich_style  # computing it is not cheap: once per pass, not per line
        self._update_lines(self.size.width)
        moved = False
        first = max(bisect_right(self._starts, crop.y) - 1, 0)
        if self._backlog:  # render what it shows now and then only (`BACKLOG_DRAW`); blank rows stand in meanwhile
            now = time.perf_counter()
            if now - self._backlog_drawn < BACKLOG_DRAW:
                first = len(self._pieces)
            else:
                self._backlog_drawn = now
        for index in range(first, len(self._pieces)):
            if self._starts[index] >= crop.bottom:
                break
            moved = self._render_piece(index) or moved
        if moved:  # estimates gave way to real heights: lay out again (this frame draws what it can)
            self._styled.clear()
            self.refresh(layout=True)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width, style, starts = self.size.width, self._line_style, self._starts
        if y >= starts[-1]:
            tail_y = y - starts[-1]
            line = self._tail[tail_y] if tail_y < len(self._tail) else Strip.blank(0)
            return self._selectable(line, y, style).extend_cell_length(width, style)
        cache = self._styled
        if cache.get("style") != style:  # the theme or the background changed
            cache.clear()
            cache["style"] = style
        strip = cache.get(y)
        if not isinstance(strip, Strip):
            index = bisect_right(starts, y) - 1
            lines = self._pieces[index].lines
            if lines is None:
                return Strip.blank(width, style)
            row = y - starts[index]
            line = lines[row] if row < len(lines) else Strip.blank(0)
            strip = cache[y] = self._selectable(line, y, style).extend_cell_length(width, style)
        return strip

    def _selectable(self, line: Strip, y: int, style: Style) -> Strip:
        """`line` in the widget's style, with the selection offsets (and highlight, if selected) applied."""
        line = line.apply_style(style)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            end = line.cell_length if end == -1 else end
            highlight = self.screen.get_component_rich_style("screen--selection")
            before, chosen, after = line.divide([start, max(start, end), line.cell_length])
            line = Strip.join([before, chosen.apply_style(highlight), after])
        return line.apply_offsets(0, y)
