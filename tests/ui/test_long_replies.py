"""Long replies stream at a cost that grows linearly: a block that keeps growing (a long list, code block,
paragraph) is rendered a bounded piece at a time, and what is on screen at the end is exactly what was sent.

Cost is checked by what it is made of, not by the clock: the largest source Rich is asked to render at
once stays bounded however long the reply (before, the growing block was re-rendered whole on every flush,
and a reply arriving in one delta was rendered in one go)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip

from tests.ui.helpers import SIZE, chat, make_app, send, wait_until
from tui_agent.testing.scripted import reply_script
from tui_agent.ui.widgets import markdown_view
from tui_agent.ui.widgets.markdown_cuts import SPLIT
from tui_agent.ui.widgets.markdown_view import MarkdownView

BOUND = 16_000
"""Characters Rich may be given at once (a piece, with what it carries): far below the replies here."""


def whole_render(source: str, width: int) -> str:
    """`source` rendered in one piece by Rich, as plain text: what the finished reply must show."""
    console = Console(width=width, color_system=None)
    segments = console.render(Markdown(source), console.options.update_width(width))
    lines = Segment.split_and_crop_lines(segments, width, include_new_lines=False)
    return "\n".join("".join(segment.text for segment in line).rstrip() for line in lines)


@contextmanager
def largest_render(monkeypatch: object) -> Iterator[list[int]]:
    """Record the size of every source MarkdownView hands to Rich; yields the list of sizes."""
    sizes: list[int] = []
    original = MarkdownView._render_markdown

    def counting(self: MarkdownView, source: str, width: int) -> list[Strip]:
        sizes.append(len(source))
        return original(self, source, width)

    monkeypatch.setattr(MarkdownView, "_render_markdown", counting)  # type: ignore[attr-defined]
    yield sizes


def pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


async def streamed(chunks: list[str], monkeypatch: object) -> tuple[str, str, int]:
    """Stream `chunks` as one reply in the real chat screen; (shown text, whole render, largest render)."""
    app, _ = make_app([reply_script(chunks)])
    with largest_render(monkeypatch) as sizes:
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "go")
            (reply,) = chat(pilot).chat_log.assistant_messages
            await wait_until(pilot, lambda: reply.drawn, "the reply drawn")
            assert reply.text == "".join(chunks)
            largest = max(sizes)
            return reply.shown_text(), whole_render(reply.text, reply.size.width), largest


async def test_a_400_item_list_in_10_character_deltas_shows_exactly_what_was_sent(monkeypatch: object) -> None:
    source = "# Files\n\n" + "".join(f"- item {n}: `src/module_{n}.py` holds the parser\n" for n in range(400))
    shown, whole, largest = await streamed(pieces(source, 10), monkeypatch)
    assert shown == whole
    assert largest < BOUND < len(source)


async def test_a_long_code_block_shows_exactly_what_was_sent(monkeypatch: object) -> None:
    source = "```python\n" + "".join(f"def step_{n}(x):  return x * {n}\n" for n in range(700)) + "```\n\nDone.\n"
    shown, whole, largest = await streamed(pieces(source, 10), monkeypatch)
    assert shown == whole
    assert largest < BOUND < len(source)


async def test_one_character_deltas_show_exactly_what_was_sent(monkeypatch: object) -> None:
    source = "".join(f"- step {n} of the plan\n" for n in range(1, 1200))
    shown, whole, largest = await streamed(list(source), monkeypatch)
    assert shown == whole
    assert largest < BOUND < len(source)


async def test_one_large_delta_is_rendered_a_piece_at_a_time(monkeypatch: object) -> None:
    # 8 parts (54 KB, over three times the bound) are cut as 40 were (300 KB: 6 s of CPU for the same two checks)
    source = "".join(
        f"## Part {part}\n\n" + "".join(f"- line {part}.{n}: a result\n" for n in range(300)) for part in range(8)
    )
    shown, whole, largest = await streamed([source], monkeypatch)
    assert shown == whole
    assert largest < BOUND < len(source)


async def test_long_sections_arriving_at_once_are_cut_too(monkeypatch: object) -> None:
    """A heading before a list longer than a piece: the heading settles alone and the list is cut to its end
    (it was settled with the heading in one piece of the whole section when text came faster than it
    settled, and its last 10 KB in one piece even when not)."""
    source = "\n".join(
        f"## Part {part}\n\n" + "".join(f"- line {part}.{n}: the build step wrote a file\n" for n in range(600))
        for part in range(6)
    )
    app, _ = make_app([reply_script([source])])
    with largest_render(monkeypatch) as sizes:
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "go")
            (reply,) = chat(pilot).chat_log.assistant_messages
            await wait_until(pilot, lambda: reply.drawn, "the reply drawn")
            assert reply.shown_text() == whole_render(source, reply.size.width)  # renders every piece
    assert max(sizes) < 2 * SPLIT < len(source) // 6  # the end of each list too (it was one piece of ~10 KB)


async def test_chunks_arriving_after_esc_are_drawn_together(monkeypatch: object) -> None:
    """Esc marks the reply interrupted at once; the deltas the turn still drains are drawn together, as while
    it streamed (each used to be drawn at once, settling the whole reply again: seconds for a long one)."""
    from textual.app import App, ComposeResult

    from tui_agent.status import MessageStatus
    from tui_agent.ui.themes import APP_VARIABLE_DEFAULTS
    from tui_agent.ui.widgets.messages import AssistantMessage

    class Host(App[None]):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return APP_VARIABLE_DEFAULTS

        def compose(self) -> ComposeResult:
            yield AssistantMessage("m")

    source = "".join(f"- item {n}: a line that was streamed\n" for n in range(600))
    async with Host().run_test(size=SIZE) as pilot:
        reply = pilot.app.query_one(AssistantMessage)
        reply.append(source[:10_000])
        await pilot.pause()
        reply.finish(MessageStatus.INTERRUPTED, closed=False)  # Esc
        await pilot.pause()
        resets: list[int] = []
        original = MarkdownView._reset

        def counting(view: MarkdownView) -> None:
            resets.append(len(view.text))
            original(view)

        monkeypatch.setattr(MarkdownView, "_reset", counting)  # type: ignore[attr-defined]
        for start in range(10_000, len(source), 10):
            reply.append(source[start : start + 10])
        reply.finish(MessageStatus.INTERRUPTED)
        await wait_until(pilot, lambda: reply.drawn, "the late chunks drawn")  # a slice of time each, not at once
        assert len(resets) <= 1  # settling the whole text again, per late chunk, made this quadratic
        assert reply.text == source
        assert reply.shown_text() == whole_render(source, reply.size.width)


async def test_pieces_settled_while_streaming_are_rendered_outside_the_frames(monkeypatch: object) -> None:
    """A key waits for the next frame; a frame that first renders a freshly settled piece (~10 ms of Rich)
    made it wait for that too. The newest pieces are rendered in turns of the loop of their own instead."""
    source = "".join(f"- item {n}: `src/pkg/module_{n}.py` keeps the parser\n" for n in range(800))
    in_frames: list[bool] = []
    painting = [False]
    render_lines, render_piece = MarkdownView.render_lines, MarkdownView._render_piece

    def framed(view: MarkdownView, crop: object) -> list[Strip]:
        painting[0] = True
        try:
            return render_lines(view, crop)  # type: ignore[arg-type]
        finally:
            painting[0] = False

    def counted(view: MarkdownView, index: int) -> bool:
        if view._pieces[index].lines is None:
            in_frames.append(painting[0])
        return render_piece(view, index)

    monkeypatch.setattr(MarkdownView, "render_lines", framed)  # type: ignore[attr-defined]
    monkeypatch.setattr(MarkdownView, "_render_piece", counted)  # type: ignore[attr-defined]
    app, _ = make_app([reply_script(pieces(source, 200), delay=0.01)])  # paced: many frames while it streams
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        (reply,) = chat(pilot).chat_log.assistant_messages
        await wait_until(pilot, lambda: reply.drawn, "the reply drawn")
        while_streaming = list(in_frames)
        assert reply.shown_text() == whole_render(source, reply.size.width)
    assert len(while_streaming) > 5 and sum(while_streaming) <= len(while_streaming) // 4, while_streaming


async def test_the_newest_pieces_are_rendered_one_turn_of_the_loop_each(monkeypatch: object) -> None:
    """A widget handles all its queued messages in one turn of the event loop: pieces rendered as a chain of
    its messages (~4 ms each), and a flush with them, went by without a key or a frame in between. Each piece
    is rendered in a turn of the loop of its own."""
    source = "".join(f"- item {n}: `src/pkg/module_{n}.py` keeps the parser\n" for n in range(1200))
    turns, rendered_in = [0], []
    render_end, render_piece = MarkdownView._render_end, MarkdownView._render_piece
    ending = [False]

    def tick() -> None:  # once per turn of the loop
        turns[0] += 1
        asyncio.get_running_loop().call_soon(tick)

    def end(view: MarkdownView) -> None:
        ending[0] = True
        try:
            render_end(view)
        finally:
            ending[0] = False

    def counted(view: MarkdownView, index: int) -> bool:
        if ending[0] and view._pieces[index].lines is None:
            rendered_in.append(turns[0])
        return render_piece(view, index)

    monkeypatch.setattr(MarkdownView, "_render_end", end)  # type: ignore[attr-defined]
    monkeypatch.setattr(MarkdownView, "_render_piece", counted)  # type: ignore[attr-defined]
    # Flushes paced by the stream alone: a flush that also waits for what drawing cost (slow under load) leaves
    # fewer pieces for the end, and this test is about how the end renders them.
    monkeypatch.setattr(MarkdownView, "take_render_seconds", lambda view: 0.0)  # type: ignore[attr-defined]
    app, _ = make_app([reply_script(pieces(source, 4 * SPLIT), delay=0.05)])  # several pieces settle at once
    async with app.run_test(size=(120, 160)) as pilot:  # and a screen shows several
        tick()
        await send(pilot, "go")
        (reply,) = chat(pilot).chat_log.assistant_messages
        await wait_until(pilot, lambda: reply.drawn, "the reply drawn")
        assert reply.shown_text() == whole_render(source, reply.size.width)
    assert len(rendered_in) > 5 and len(set(rendered_in)) == len(rendered_in), rendered_in


async def test_a_reply_arriving_faster_than_it_settles_is_shown_now_and_then(monkeypatch: object) -> None:
    """One big delta settles in many slices; each slice asked for a layout (the view a little taller, the log
    scrolled to its new end) and the frame rendered the pieces at that end (~10 ms each), scrolled past a moment
    later: 5x `-p`'s time for one 500 KB delta. While a backlog settles the view is shown every `BACKLOG_DRAW`
    (here: once, at its start), and the end is rendered once it is all settled."""
    source = "".join(
        f"## Part {part}\n\n" + "".join(f"- line {part}.{n}: the build step wrote a file\n" for n in range(400))
        for part in range(6)
    )
    monkeypatch.setattr(markdown_view, "SLICE", 0.002)  # type: ignore[attr-defined]  # many slices on any machine
    monkeypatch.setattr(markdown_view, "BACKLOG_DRAW", 3600.0)  # type: ignore[attr-defined]
    heights: set[int] = set()
    rendered_in_backlog: list[int] = []
    content_height, render_piece = MarkdownView.get_content_height, MarkdownView._render_piece

    def height(view: MarkdownView, container: Size, viewport: Size, width: int) -> int:
        value = content_height(view, container, viewport, width)
        if view._backlog:
            heights.add(value)
        return value

    def counted(view: MarkdownView, index: int) -> bool:
        if view._backlog and view._pieces[index].lines is None:
            rendered_in_backlog.append(index)
        return render_piece(view, index)

    monkeypatch.setattr(MarkdownView, "get_content_height", height)  # type: ignore[attr-defined]
    monkeypatch.setattr(MarkdownView, "_render_piece", counted)  # type: ignore[attr-defined]
    app, _ = make_app([reply_script([source])])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        (reply,) = chat(pilot).chat_log.assistant_messages
        await wait_until(pilot, lambda: reply.drawn, "the reply drawn")
        pieces_settled = len(reply._pieces)

        def end_shown() -> bool:
            rows = range(max(reply.size.height - 8, 0), reply.size.height)
            return "line 5.399" in "".join(reply.render_line(y).text for y in rows)

        await wait_until(pilot, end_shown, "the end of the reply on screen")
    assert pieces_settled > 50
    assert len(heights) <= 1, sorted(heights)  # no layout grew it while it settled (one per slice before)
    assert len(rendered_in_backlog) <= 4, rendered_in_backlog  # only what its first frame showed


async def test_a_flush_waits_for_what_rendering_its_pieces_cost() -> None:
    """The pieces a flush settles are rendered after it (in turns of the loop of their own, in frames): a fast
    stream of a long list paid ~10 ms of Rich per piece on top of each flush while flushes came every 50 ms,
    and left the agent a fraction of the loop. The next flush waits `FLUSH_SHARE` times that cost too."""
    from tui_agent.ui.widgets.messages import FLUSH_SHARE

    source = "".join(f"- item {n}: `src/pkg/module_{n}.py` keeps the parser\n" for n in range(200))
    app, _ = make_app([reply_script(pieces(source, 500))])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        (reply,) = chat(pilot).chat_log.assistant_messages
        await wait_until(pilot, lambda: reply.drawn and any(piece.lines for piece in reply._pieces), "pieces drawn")
        assert reply.take_render_seconds() > 0 and reply.take_render_seconds() == 0, "the cost is taken once"
        reply._render_seconds = 0.25  # what the pieces of the last flush cost, say
        reply.flush()
        assert reply._interval >= FLUSH_SHARE * 0.25
