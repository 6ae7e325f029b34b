"""The Textual internals tui-agent relies on (`tui_agent/ui/textual_private.py`) still behave as it expects, and
nothing else in the UI or its tests reaches for a Textual private name: a Textual release that changes one
fails here, not somewhere in the middle of the suite (or silently, in the product)."""

from __future__ import annotations

import asyncio
import functools
import gc
import hashlib
import inspect
import re
import weakref
from pathlib import Path
from typing import Any

from textual import _time
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static, TextArea, Tree
from textual.widgets.tree import TreeNode

from tests.ui.helpers import SIZE, chat, make_app, wait_until
from tests.ui.test_keys import ui_classes
from tui_agent.ui.textual_private import (
    FRAME_UPDATE,
    TEXTUAL_TIMER_RUN,
    FrameUpdate,
    Toast,
    ToastRack,
    frames_on_the_next_tick,
    inner_outer_by_colours,
    input_thread_known,
    let_switch_out,
    notifications,
    scroll_sizes_known,
    source_digest,
    timer_patch,
    tree_label_known,
    wrap_frame_update,
)

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ["tui_agent/ui", "tests/ui", "tests/snapshots", "bench"]
WRAPPER = ROOT / "tui_agent/ui/textual_private.py"
ALLOWED: set[str] = set()
"""Known uses of a Textual private name by our own classes, each with the reason it still stands."""


async def test_notifications_show_as_toasts_in_the_screens_toast_rack() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.notify("Saved.")
        await wait_until(pilot, lambda: bool(chat(pilot).query(Toast)), "the toast shown")
        assert [n.message for n in notifications(app)] == ["Saved."]
        (rack,) = chat(pilot).query(ToastRack)
        (toast,) = rack.query(Toast)
        assert "Saved." in str(toast.render())
        chat(pilot).fit_toasts()  # the chat screen finds the rack to size it
        assert rack.styles.width is not None and rack.styles.width.value == chat(pilot).chat_log.outer_size.width


async def test_the_apps_first_screen_is_switched_out_and_removed() -> None:
    class First(Screen[None]):
        pass

    class Plain(App[None]):
        def get_default_screen(self) -> Screen[Any]:
            return First()

    app = Plain()
    async with app.run_test() as pilot:
        first = app.screen
        let_switch_out(first)
        let_switch_out(first)  # once is enough: a second call adds nothing
        await app.switch_screen(Screen())
        await wait_until(pilot, lambda: not first.is_running, "the first screen removed")
        assert app.screen_stack == [app.screen] and app.screen is not first


async def test_every_frame_goes_through_a_wrapped_frame_update() -> None:
    frames: list[str] = []

    def counted(update: FrameUpdate, screen: Screen[Any]) -> None:
        frames.append(type(screen).__name__)
        update(screen)

    textual_update = getattr(Screen, FRAME_UPDATE)
    undo = wrap_frame_update(counted)
    try:
        app, _ = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: "ChatScreen" in frames, "a frame of the chat screen")
            await pilot.press("a")
            shown = len(frames)
            await wait_until(pilot, lambda: len(frames) > shown and "a" in app.export_screenshot(), "the key drawn")
    finally:
        undo()
    assert getattr(Screen, FRAME_UPDATE) is textual_update  # put back


def textual_private_names(*classes: type) -> set[str]:
    """The private attributes and methods of `classes` and their Textual bases (set in code or in the class)."""
    bases = {base for cls in classes for base in cls.__mro__ if base.__module__.startswith("textual.")}
    return set().union(*map(private_names_of, bases))


@functools.cache
def private_names_of(base: type) -> frozenset[str]:
    """One Textual class's private names (read once: `Widget`'s source alone is thousands of lines)."""
    names = {name for name in vars(base) if name.startswith("_") and not name.startswith("__")}
    return frozenset(names | set(re.findall(r"self\.(_[a-z]\w*)", inspect.getsource(base))))


def private_names_used(cls: type) -> set[str]:
    """The `self._x` and `super()._x` in `cls`'s own source that are private names of its Textual bases."""
    used = set(re.findall(r"\b(?:self|super\(\))\.(_[a-z]\w*)", inspect.getsource(cls)))
    return used & textual_private_names(cls)


def test_our_classes_use_no_private_name_of_their_textual_bases() -> None:
    """`self._x` in a subclass of a Textual class either uses Textual's private `_x` or shadows it (as
    `App._closed` was: after our close every message was dropped)."""
    found = {f"{cls.__name__}.{name}" for cls in ui_classes() for name in private_names_used(cls)}
    assert found <= ALLOWED, f"Textual private names used outside textual_private.py: {sorted(found - ALLOWED)}"
    assert ALLOWED <= found, f"no longer used, remove from ALLOWED: {sorted(ALLOWED - found)}"


def test_no_textual_private_is_reached_from_outside_the_wrapper() -> None:
    """`app._notifications`, `owner._merged_bindings`, `textual.widgets._toast`...: only the wrapper may."""
    names = textual_private_names(App, Screen, Widget, TextArea, Tree)
    reached = re.compile(r"(?<![\w.])(?!self\b|super\(\)|cls\b)(\w+(?:\.\w+)*|\w+\(\))\.(_[a-z]\w*)")
    found = []
    skipped = {WRAPPER, Path(__file__).resolve()}  # this file names the privates it looks for
    for path in (path for folder in SCANNED for path in sorted((ROOT / folder).rglob("*.py")) if path not in skipped):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {m.group(0)}" for m in reached.finditer(text) if m.group(2) in names]
        found += [f"{path.name}: {m.group(0)}" for m in re.finditer(r"\btextual(?:\.\w+)*\._\w+", text)]
    assert not found, f"use tui_agent/ui/textual_private.py instead: {found}"


def test_the_timer_loop_mirrored_is_textuals_own() -> None:
    """The Textual installed ships a loop the patch was written for (tests/ui/test_textual_range.py runs this on
    each end of the allowed range), read as `inspect.getsource` reads it."""
    assert timer_patch().applied, timer_patch().reason
    source = inspect.getsource(TEXTUAL_TIMER_RUN)
    assert source_digest(TEXTUAL_TIMER_RUN) == hashlib.sha256(source.encode()).hexdigest()[:16]


def test_the_inner_outer_mirrored_is_textuals_own() -> None:
    """The Textual installed ships a `StylesCache.get_inner_outer` the cache by colour was written for
    (tests/ui/test_textual_range.py runs this on each end of the allowed range)."""
    assert inner_outer_by_colours()


def test_the_input_thread_stopped_without_waiting_is_textuals_own() -> None:
    """The Textual installed stops its input thread as `stop_input_without_waiting` expects (its exit event read on
    every round of the thread's loop, the thread joined once): otherwise an exit waits for it, as Textual does."""
    assert input_thread_known()


def test_the_tree_label_mirrored_is_textuals_own() -> None:
    """The Textual installed labels tree rows as `relabel_tree_node` expects (a row's cache key counts its
    nodes' changes): otherwise Textual's `set_label` is used, which repaints the node's whole subtree."""
    assert tree_label_known(TreeNode, Tree)


def test_the_scroll_sizes_mirrored_are_textuals_own() -> None:
    """The Textual installed updates a scroll view's scrollbars as `steady_scrollbars` expects (only from the
    sizes a layout hands it and its own): otherwise the task tree's bar is drawn again at every layout."""
    assert scroll_sizes_known()


async def note_drawn(pilot: Pilot[None], text: str) -> Static:
    """A one-word note on a background of its own, docked on the chat screen, once it is drawn."""
    note = Static(text)
    note.styles.background = "darkred"
    note.styles.dock = "top"
    await chat(pilot).mount(note)
    await wait_until(pilot, lambda: text in pilot.app.export_screenshot(), f"{text} drawn")
    return note


async def test_a_removed_widgets_rendered_lines_are_freed() -> None:
    """Textual's `get_inner_outer` cache held the styles cache (the rendered lines) of each widget that drew
    through it, removed or not, until 1,024 others came (bench/memory.py: ~0.2 MB a turn in the chat log)."""
    app, _ = make_app()  # the app caches by colour from its start
    async with app.run_test(size=SIZE) as pilot:
        note = await note_drawn(pilot, "Notabene")
        lines, widget = weakref.ref(note._styles_cache), weakref.ref(note)
        await note.remove()
        del note
        await note_drawn(pilot, "Postscript")  # the screen lays out its children again: the old list is gone
        # On a loaded machine the note's last messages may still be on their way (one CI run found it held just
        # after): it must go soon, where the cache held it until 1,024 others came.
        await wait_until(pilot, lambda: collected(widget, lines), lambda: holders(widget, lines))


def collected(*refs: weakref.ref[Any]) -> bool:
    """Every object of `refs` is gone after a full collection."""
    gc.collect()
    return all(ref() is None for ref in refs)


def holders(*refs: weakref.ref[Any]) -> str:
    """What still holds the objects of `refs`: the types of their referrers, for a failure message."""
    held = [(ref(), [type(holder).__name__ for holder in gc.get_referrers(ref())]) for ref in refs if ref()]
    return f"the removed note or its rendered lines are still referenced: {held}"


class _Ticks(Timer):
    """A timer recording each tick (its planned time, when it ran) and pausing after it, as a screen's does."""

    ticks: list[tuple[float, float]]

    async def _tick(self, *, next_timer: float, count: int) -> None:
        self.ticks.append((next_timer, _time.get_time()))
        self.pause()


async def test_a_timer_resumed_after_a_pause_ticks_again_on_the_next_tick() -> None:
    frames_on_the_next_tick()
    interval = 0.05
    timer = _Ticks(App(), interval, name="frames", skip=True)
    timer.ticks = []
    timer._start()
    try:
        while not timer.ticks:  # the first tick, then paused
            await asyncio.sleep(0.01)
        await asyncio.sleep(4 * interval)  # paused for longer than two ticks
        timer.resume()  # something changed: a frame at once
        while len(timer.ticks) < 2:
            await asyncio.sleep(0.005)
        timer.resume()  # a key just after that frame
        while len(timer.ticks) < 3:
            await asyncio.sleep(0.005)
    finally:
        timer.stop()
    _, painted = timer.ticks[1]
    planned, _ = timer.ticks[2]
    assert planned - painted <= interval  # its next tick (Textual's own loop: the one after, up to two ticks on)
