"""Provides the few Textual internals tui-agent still needs, each with the reason no public API will do.

Nothing else in the project (product or tests) touches a Textual private name: it goes through here, and
`tests/ui/test_textual_private.py` fails when a Textual release moves or changes one of these, which is what
lets `pyproject.toml` accept a range of Textual releases instead of one.
"""

from __future__ import annotations

import functools
import hashlib
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from rich.text import Text
from textual import _time
from textual._styles_cache import StylesCache
from textual.app import App
from textual.color import Color
from textual.drivers.linux_driver import LinuxDriver
from textual.geometry import Region, Size
from textual.notifications import Notification
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.timer import EventTargetGone, Timer
from textual.widget import Widget
from textual.widgets._toast import Toast, ToastRack

__all__ = [
    "FrameUpdate",
    "TimerPatch",
    "Toast",
    "ToastRack",
    "frames_on_the_next_tick",
    "inner_outer_by_colours",
    "input_thread_known",
    "let_switch_out",
    "notifications",
    "relabel_tree_node",
    "scroll_sizes_known",
    "tree_label_known",
    "source_digest",
    "steady_scrollbars",
    "stop_input_without_waiting",
    "timer_patch",
    "timer_patch_for",
    "wrap_frame_update",
    "write_to_terminal",
]

# `Toast` and `ToastRack`: Textual mounts a toast rack on every screen (docked at the top) and shows each
# notification as a toast in it, but exports neither class. The chat screen narrows the rack to the
# conversation (`ChatScreen.fit_toasts`), and tests read the toasts a person sees.


def notifications(app: App[Any]) -> list[Notification]:
    """The notifications the app shows now, oldest first.

    Textual keeps them in `App._notifications` and offers no getter; tests read them to check what the
    person was told (toasts are only mounted when the test app runs with `notifications=True`).
    """
    return list(app._notifications)


def let_switch_out(screen: Screen[Any]) -> None:
    """Let `App.switch_screen` replace `screen` even when it is the app's first one, which was never pushed.

    `switch_screen` drops the replaced screen's result callback (`Screen._pop_result_callback`), which only a
    pushed screen has: switching the first one out raised IndexError, so a fresh chat screen was pushed over it
    and the old one stayed in the stack, emptied, and was still sent resizes, timers and workers' ends. Given
    an empty callback it is switched out, and Textual removes it as it removes every screen it replaces.
    """
    if not screen._result_callbacks:
        screen._push_result_callback(screen, None)


FrameUpdate = Callable[[Screen[Any]], None]
"""A screen's frame update: lay out what changed, composite, write to the terminal."""
FRAME_UPDATE = "_on_timer_update"
"""The `Screen` method Textual's update timer calls for each frame."""


def wrap_frame_update(wrapper: Callable[[FrameUpdate, Screen[Any]], None]) -> Callable[[], None]:
    """Run `wrapper(update, screen)` in place of every frame update of every screen from now on (the benchmarks
    time frames this way: Textual has no hook around a frame); returns a function that puts Textual's back.
    """
    update: FrameUpdate = getattr(Screen, FRAME_UPDATE)

    def wrapped(screen: Screen[Any]) -> None:
        wrapper(update, screen)

    setattr(Screen, FRAME_UPDATE, wrapped)
    return lambda: setattr(Screen, FRAME_UPDATE, update)


def write_to_terminal(app: App[Any], text: str) -> bool:
    """Write `text` (an escape sequence the app composed itself) to the terminal, between frames; False when
    there is no terminal (headless, or the driver is gone).

    Textual's only public raw write is `App.bell()`, which writes BEL through `App._driver`; an OSC desktop
    notification needs the same door.
    """
    driver = app._driver
    if app.is_headless or driver is None:
        return False
    driver.write(text)
    driver.flush()
    return True


# `Timer._run`: Textual pauses a screen's update timer after each frame and resumes it when something changes.
# After a pause of more than two ticks, its skip of the missed ticks lands on the tick *after* the next one, so
# the frame after one painted on resuming waited 17-33 ms instead of up to 17 ms. While a reply streams, its
# frames come after such pauses, and a key pressed then waited for that (bench/long.py case 4: key echo p99
# 46-50 -> 35-42 ms). `frames_on_the_next_tick` replaces it with the same loop, skipping to the next tick, but
# only when Textual's loop is, to the character, one of the releases it was written for: any other is left
# alone (and `tui-agent doctor` says so). docs/upstream/textual-timer.md is the change that would end this.
TEXTUAL_TIMER_RUN = Timer._run
"""Textual's own loop, as imported (before any patch)."""
TIMER_RUN_RELEASES = {"60c942a84c1a8765": "8.2.5 to 8.2.8"}
"""Digests (`source_digest`) of the `Timer._run` that `_run_to_the_next_tick` mirrors, with the Textual releases
that ship it (checked against each end of the range `pyproject.toml` allows by tests/ui/test_textual_range.py)."""


@dataclass(frozen=True)
class TimerPatch:
    """Whether Textual's timer loop is (or would be) replaced by `frames_on_the_next_tick`, and why."""

    applied: bool
    reason: str
    """What was found: the release whose loop it is, or what differs (a sentence)."""


def source_digest(function: Callable[..., Any]) -> str | None:
    """The first 16 hex digits of the SHA-256 of `function`'s source as its file has it (what `inspect.getsource`
    returns, without tokenizing: this runs before the first frame); None when there is no source to read."""
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    last = max((line for _, _, line in code.co_lines() if line is not None), default=code.co_firstlineno)
    try:
        with open(code.co_filename, encoding="utf-8") as file:
            lines = file.read().splitlines(keepends=True)[code.co_firstlineno - 1 : last]
    except (OSError, UnicodeDecodeError):
        return None
    return hashlib.sha256("".join(lines).encode()).hexdigest()[:16]


@functools.cache
def timer_patch() -> TimerPatch:
    """What `frames_on_the_next_tick` does with the Textual installed: replace its loop only if it is known."""
    return timer_patch_for(TEXTUAL_TIMER_RUN)


def timer_patch_for(run: Callable[..., Any]) -> TimerPatch:
    """Whether `run`, as Textual's `Timer._run`, is one `_run_to_the_next_tick` mirrors."""
    digest = source_digest(run)
    if digest is None:
        return TimerPatch(False, "Textual's Timer._run has no readable source, so it cannot be checked")
    if (releases := TIMER_RUN_RELEASES.get(digest)) is None:
        written_for = "the releases the patch was written for"
        return TimerPatch(False, f"Textual's Timer._run differs from {written_for} (digest {digest})")
    return TimerPatch(True, f"Textual's Timer._run is that of releases {releases}")


async def _run_to_the_next_tick(timer: Timer) -> None:
    """Textual 8.2's `Timer._run`, but for `int(...)` in place of `int(... + 1)` where missed ticks are skipped."""
    self: Any = timer  # Textual types `_active` so that mypy takes the loop for unreachable
    count = 0
    _repeat = self._repeat
    _interval = self._interval
    await self._active.wait()
    start = _time.get_time()
    while _repeat is None or count <= _repeat:
        next_timer = start + ((count + 1) * _interval)
        now = _time.get_time()
        if self._skip and next_timer < now:
            count = int((now - start) / _interval)  # the next tick, not the one after it
            continue
        await _time.sleep(max(0, next_timer - _time.get_time()))
        count += 1
        await self._active.wait()
        if self._reset:
            start = _time.get_time()
            count = 0
            self._reset = False
            continue
        try:
            await self._tick(next_timer=next_timer, count=count)
        except EventTargetGone:
            break


def frames_on_the_next_tick() -> TimerPatch:
    """From now on, a timer resumed after a pause ticks on its next tick (the screen's frames included), when
    Textual's timer loop is one this was written for; otherwise Textual's stays. Says which (`TimerPatch`)."""
    patch = timer_patch()
    if not patch.applied or Timer._run is _run_to_the_next_tick:
        return patch
    if Timer._run is not TEXTUAL_TIMER_RUN:  # someone else's loop since: theirs stays
        return TimerPatch(False, "Timer._run was replaced by other code in this process")
    Timer._run = _run_to_the_next_tick  # type: ignore[method-assign,assignment]
    return patch


# `StylesCache.get_inner_outer`: an `lru_cache` (1,024 entries, one for the whole process) on an instance method,
# so each key holds the `StylesCache` of the widget that asked, and with it that widget's rendered lines. The
# chat log lets old messages go as new ones come (`ui/widgets/log_window.py`); each turn left two of them
# behind, ~2,200 objects and ~0.2 MB, until 1,024 other keys would push them out (~500 turns, ~90 MB).
# `inner_outer_by_colours` caches the same two styles by the colours alone, only when Textual's method is, to the
# character, that of the releases it was written for. docs/upstream/textual-styles-cache.md would end this.
TEXTUAL_INNER_OUTER: Any = StylesCache.__dict__["get_inner_outer"]
"""Textual's own cached method, as imported (before any patch)."""
INNER_OUTER_RELEASES = {"e75b1dbd7493868f": "8.2.5 to 8.2.8"}
"""Digests (`source_digest`) of the `get_inner_outer` that `_inner_outer` mirrors, with the releases shipping it."""


@functools.lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Any, Any]:
    """Textual 8.2's `StylesCache.get_inner_outer`, cached by its two colours only (it reads nothing else)."""
    return TEXTUAL_INNER_OUTER.__wrapped__(None, base_background, background)  # type: ignore[no-any-return]


def inner_outer_by_colours() -> bool:
    """From now on, widgets' background styles are cached by colour, not by widget (so a removed widget's
    rendered lines are freed), when Textual's method is one this was written for; True if so."""
    current = StylesCache.__dict__["get_inner_outer"]
    if isinstance(current, staticmethod) and current.__func__ is _inner_outer:
        return True
    wrapped = getattr(current, "__wrapped__", None)
    if current is not TEXTUAL_INNER_OUTER or wrapped is None or source_digest(wrapped) not in INNER_OUTER_RELEASES:
        return False  # another release's (or someone else's): Textual's stays
    StylesCache.get_inner_outer = staticmethod(_inner_outer)  # type: ignore[method-assign,assignment]
    TEXTUAL_INNER_OUTER.cache_clear()  # the widgets its keys held go with them
    return True


# `LinuxDriver.disable_input`: on exit Textual sets the input thread's exit event and joins the thread. The thread
# sees the event at the end of its 0.1 s `select`, then selects 0.1 s more on a selector it has emptied, so every
# exit waited 0.1-0.2 s there, before history was saved or the terminal given back (bench/exit.py). After its
# first `select` the thread reads nothing more, so not waiting loses no key the app would have taken.
# `stop_input_without_waiting`, called as the app exits, gives the driver an event that stays set (the driver
# clears it to restart input later, which an exiting app never does) and a thread handle whose `join` returns at
# once; the real thread ends on its own a moment later, while the rest of the exit goes on. Only when Textual's two
# methods are, to the character, those of the releases it was written for.
INPUT_THREAD_RELEASES = {("6154c5a7c1743fe9", "d796af6d69db337d"): "8.2.5 to 8.2.8"}
"""Digests (`source_digest`) of `LinuxDriver.disable_input` and `LinuxDriver.run_input_thread` that
`stop_input_without_waiting` was written for, with the Textual releases that ship them."""


class _StaysSet(threading.Event):
    """The input thread's exit event once the app exits: set for good."""

    def clear(self) -> None:
        pass


class _NotWaitedFor:
    """The input thread as the exiting driver sees it: joining it does not wait."""

    def __init__(self, thread: threading.Thread) -> None:
        self.thread = thread

    def join(self, timeout: float | None = None) -> None:
        pass

    def is_alive(self) -> bool:
        return self.thread.is_alive()


def input_thread_known() -> bool:
    """Whether Textual's driver stops its input thread as `stop_input_without_waiting` expects."""
    digests = (source_digest(LinuxDriver.disable_input), source_digest(LinuxDriver.run_input_thread))
    return digests in INPUT_THREAD_RELEASES


def stop_input_without_waiting(app: App[Any]) -> bool:
    """As `app` exits: its driver will stop the input thread without waiting for it to end (see above); True if
    so (False headless, on another driver, or on a Textual release this was not written for)."""
    driver = app._driver
    thread = getattr(driver, "_key_thread", None)
    if type(driver) is not LinuxDriver or not isinstance(thread, threading.Thread) or not input_thread_known():
        return False
    if driver.exit_event.is_set():  # already stopping (or stopped): nothing left to shorten
        return False
    driver.exit_event = _StaysSet()
    driver._key_thread = _NotWaitedFor(thread)  # type: ignore[assignment]
    return True


# `TreeNode.set_label`: Textual repaints every row of the node's subtree in view (`Tree._refresh_node`: a row
# is repainted when the node is on its path), scanning every row in view to find them, on the next message.
# The task tree's turn line counts what runs under it, so each call that started or ended repainted all 55
# rows of a 55-node turn, and each tick of the elapsed times repainted every row once per running node. A
# label is only its own row: `relabel_tree_node` sets it and repaints that row alone. Rows below keep the strips
# they were drawn with (their cache key, which counts the node's changes, is only read when they are drawn
# again). It repaints as `Widget.refresh` does but keeps the styles of the tree's parts (guides, label), which
# `refresh` drops and the row's drawing then works out again from the CSS: a label changes none of them. Only
# when Textual's methods are, to the character, those of the releases it was written for.
TREE_LABEL_RELEASES = {("6c8f464b07d0d27b", "1e31412feec0b029", "b1ce3392c9c00870"): "8.2.5 to 8.2.8"}
"""Digests (`source_digest`) of `TreeNode.set_label`, `Tree._render_line` and `Widget.refresh` that
`relabel_tree_node` mirrors."""


_TREE_LABELS_KNOWN: dict[tuple[Any, Any], bool] = {}


def tree_label_known(node_class: Any, tree_class: Any) -> bool:
    """Whether Textual's tree labels work as `relabel_tree_node` expects (the classes are passed, not imported
    here: the tree widget loads after the first frame)."""
    key = (node_class, tree_class)
    if key not in _TREE_LABELS_KNOWN:
        digests = (
            source_digest(node_class.set_label),
            source_digest(tree_class._render_line),
            source_digest(tree_class.refresh),
        )
        _TREE_LABELS_KNOWN[key] = digests in TREE_LABEL_RELEASES
    return _TREE_LABELS_KNOWN[key]


def relabel_tree_node(node: Any, label: Text) -> None:
    """Give `node` (a `TreeNode`) a new label and repaint its row only (Textual's `set_label` on another release)."""
    if not tree_label_known(type(node), type(node.tree)):
        node.set_label(label)
        return
    tree = node.tree
    node._label = tree.process_label(label)
    node._updates += 1  # its row's cache key
    if node.line >= 0 and tree.is_mounted:  # -1: not laid out yet, and the tree is drawn whole once it is
        # `Widget.refresh(row)` but for `_rich_style_cache.clear()`: the parts' styles are kept (see above)
        tree._layout_cache.clear()
        tree._set_dirty(Region(0, node.line - tree.scroll_offset.y, tree.size.width, 1))
        tree.clear_cached_dimensions()
        tree._repaint_required = True
        tree.check_idle()


# `ScrollView._size_updated`: at every layout of the screen Textual hands each widget the sizes the compositor
# gave it. A `ScrollView` compares the compositor's virtual size (its content region) with its own (what it
# draws: a tree's widest row by its number of rows), which differ for as long as it has more rows than fit, so
# each layout refreshes its vertical scrollbar (`Widget._scroll_update`), though nothing of the bar changed. The
# chat screen lays out at each chunk of a streaming reply: the task tree's bar (36 rows of Rich rendering) was
# drawn again at every frame, ~1 ms of a ~10 ms frame (bench/task_tree.py). `steady_scrollbars` skips a call
# whose inputs and the state it reads are all as the last call left them: Textual's would set the same values
# again and only repaint the bar. Only when Textual's methods are, to the character, those it was written for.
SCROLL_SIZES_RELEASES = {("1606ca15d9392999", "edb9f6257285830d", "4e52a14aae901b5b"): "8.2.5 to 8.2.8"}
"""Digests (`source_digest`) of `ScrollView._size_updated`, `Widget._scroll_update` and
`Widget._refresh_scrollbars`, which `steady_scrollbars` relies on, with the releases shipping them."""
_Scrolling = TypeVar("_Scrolling", bound=ScrollView)


def scroll_sizes_known() -> bool:
    """Whether Textual's scroll views update their scrollbars as `steady_scrollbars` expects."""
    digests = (
        source_digest(ScrollView._size_updated),
        source_digest(Widget._scroll_update),
        source_digest(Widget._refresh_scrollbars),
    )
    return digests in SCROLL_SIZES_RELEASES


def _scroll_state(view: ScrollView, size: Size, virtual_size: Size, container_size: Size) -> tuple[Any, ...]:
    """What `ScrollView._size_updated` reads: its arguments, the sizes it sets, and what draws the bars."""
    styles = view.styles
    return (
        size,
        virtual_size,
        container_size,
        view.outer_size,
        view.container_size,
        view.virtual_size,
        view.show_vertical_scrollbar,
        view.show_horizontal_scrollbar,
        styles.overflow_x,
        styles.overflow_y,
        styles.scrollbar_size_vertical,
        styles.scrollbar_size_horizontal,
        styles.gutter,
    )


def steady_scrollbars(view_class: type[_Scrolling]) -> type[_Scrolling]:
    """A `ScrollView` class whose scrollbars are drawn again only when a layout changed what they show (a class
    decorator; the class is left as it is on a Textual it was not written for)."""
    if not scroll_sizes_known():
        return view_class
    update = view_class._size_updated
    last: weakref.WeakKeyDictionary[ScrollView, tuple[Any, ...]] = weakref.WeakKeyDictionary()

    def _size_updated(
        self: ScrollView, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        if last.get(self) == _scroll_state(self, size, virtual_size, container_size):  # Textual's: the bar again
            return self.outer_size != size or self.container_size != container_size
        resized = update(self, size, virtual_size, container_size, layout)
        last[self] = _scroll_state(self, size, virtual_size, container_size)
        return resized

    view_class._size_updated = _size_updated  # type: ignore[method-assign]
    return view_class
