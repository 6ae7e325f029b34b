"""MarkdownView renders a streamed text exactly as the whole text, settling blocks as they complete."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

from tests.ui.helpers import wait_until
from tui_agent.ui.widgets.markdown_cuts import ends_with_rule, settled_boundary
from tui_agent.ui.widgets.markdown_rich import ChatMarkdown

DOC = """# Title

Some *para* text that
continues.

- a
- b

```python
x = 1

y = 2
```

| a | b |
|---|---|
| 1 | 2 |

1. one
2. two

> quote

    indented code

---

Done.
"""
BLOCKS = st.sampled_from(DOC.split("\n\n")) | st.text(alphabet="ab `#-|>\n*", max_size=30)
CONSOLE = Console(width=50, color_system=None)


def render(source: str) -> list[str]:
    segments = CONSOLE.render(ChatMarkdown(source), CONSOLE.options.update_width(50))
    return ["".join(s.text for s in line) for line in Segment.split_and_crop_lines(segments, 50)]


def render_incrementally(text: str, cuts: list[int]) -> list[str]:
    """Mirror MarkdownView: settle blocks at each cut, render settled chunks once, then the tail."""
    settled, chunks = 0, []
    for cut in sorted(cuts):
        boundary = settled + settled_boundary(text[settled:cut])
        if boundary > settled:
            chunks.append(text[settled:boundary])
            settled = boundary
    chunks.append(text[settled:])
    lines: list[str] = []
    previous = ""
    for chunk in filter(str.strip, chunks):
        follows = bool(previous) and not ends_with_rule(previous)
        lines.extend(render(f"x\n\n{chunk}")[1:] if follows else render(chunk))
        previous = chunk
    return lines


def test_boundaries_of_a_document() -> None:
    assert settled_boundary("para\n\nnext") == len("para\n\n")
    assert settled_boundary("para\n\n") == 0, "no block has begun after the blank line yet"
    assert settled_boundary("```\na\n\nb\n") == 0, "blank line inside an open fence"
    assert settled_boundary("- a\n\n  continued\n") == 0, "indented continuation belongs to the list"
    assert settled_boundary("- a\n## H\n\n- b\n") == len("- a\n## H\n\n"), "a heading ends the list before it"


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(BLOCKS, min_size=1, max_size=8).map("\n\n".join), st.lists(st.integers(0, 400), max_size=12))
@example("# Title\n\n -\n\n- a\n- b", [18])  # a list indented a space after a heading, loose: one list
def test_incremental_render_equals_whole_render(text: str, cuts: list[int]) -> None:
    lines = render_incrementally(text, [cut % (len(text) + 1) for cut in cuts])
    assert lines == render(text)


async def test_widget_streamed_lines_equal_its_frozen_lines() -> None:
    """The real widget: text set piece by piece (random cuts) shows what the whole text shows."""
    import random

    from textual.app import App, ComposeResult

    from tui_agent.ui.widgets.markdown_view import MarkdownView

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield MarkdownView()

    source = DOC + "\n" + DOC.replace("# Title", "---\n\n>\n\n# Again")
    app = Host()
    async with app.run_test(size=(70, 30)) as pilot:
        view = app.query_one(MarkdownView)
        shuffle = random.Random(7)
        for _ in range(2):  # 82 cuts: each round costs ~4 s of CI
            view.set_text("")
            cuts = sorted(shuffle.sample(range(len(source)), 40))
            for cut in [*cuts, len(source)]:
                view.set_text(source[:cut])
                await pilot.pause()
                whole = MarkdownView(source[:cut])
                await app.mount(whole)
                whole.freeze()
                laid_out = lambda whole=whole: whole.size.width == view.size.width  # noqa: E731
                await wait_until(pilot, laid_out, "the whole text laid out")  # a frame after it is mounted
                assert view.shown_text() == whole.shown_text(), f"differs after {cut} characters"
                await whole.remove()


async def test_ordered_lists_keep_their_dot() -> None:
    """`1. step` is drawn `1. step` (Rich's own markdown drops the dot: `1 step`), numbers right-aligned."""
    from textual.app import App, ComposeResult

    from tui_agent.ui.widgets.markdown_view import MarkdownView

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield MarkdownView("Steps:\n\n1. plan\n2. build\n\n- a bullet\n\n9. nine\n10. ten\n")

    async with Host().run_test(size=(40, 20)) as pilot:
        view = pilot.app.query_one(MarkdownView)
        view.freeze()
        await wait_until(pilot, lambda: "ten" in view.shown_text(), "the list drawn")
        lines = [line.rstrip() for line in view.shown_text().splitlines()]
        assert [" 1. plan", " 2. build", " • a bullet", "  9. nine", " 10. ten"] == [
            line for line in lines if line.strip() and line != "Steps:"
        ]


async def test_a_tail_settled_as_it_was_rendered_is_not_rendered_again() -> None:
    """At the end of a reply its tail settles as it is: the piece takes the tail's lines (rendering them again
    cost a long code block's or table's end tens of ms), and shows what a whole render shows."""
    from textual.app import App, ComposeResult

    from tui_agent.ui.widgets.markdown_view import MarkdownView

    renders: list[str] = []

    class Counted(MarkdownView):
        def _render_markdown(self, source: str, width: int) -> list[Strip]:
            renders.append(source)
            return super()._render_markdown(source, width)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Counted()

    code = "".join(f"x_{n} = {n}\n" for n in range(30))
    source = f"Intro.\n\n```python\n{code}```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    async with Host().run_test(size=(60, 80)) as pilot:
        view = pilot.app.query_one(Counted)
        view.set_text(source)
        await wait_until(pilot, lambda: "x_29" in view.shown_text(), "the tail drawn")
        before = len(renders)
        view.freeze()
        await pilot.pause()
        assert view.shown_text() == "\n".join(line.rstrip() for line in render_at(source, 60))
        assert len(renders) == before, renders[before:]


def render_at(source: str, width: int) -> list[str]:
    console = Console(width=width, color_system=None)
    segments = console.render(ChatMarkdown(source), console.options.update_width(width))
    return ["".join(s.text for s in line) for line in Segment.split_and_crop_lines(segments, width)]
