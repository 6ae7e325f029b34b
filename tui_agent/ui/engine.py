"""Provides `EngineSlot`: the engine as the app holds it — built once, after the first frame, and awaited.

Building the engine imports the openai client (~650 ms), opens history, loads plugins and may start the
offline model, so the app paints first and runs `build()` in a worker (`TuiAgentApp.on_ready`). Screens
`await slot.engine()` (the same awaitable as `TuiAgentApp.engine()`); meanwhile the status bar shows the
model and endpoint read at boot. A failed build becomes an `EngineUnavailableError` whose sentence says why.
An engine given ready-made (a test double) is there from the start.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from tui_agent.agent.port import ChatBackend, EarlyPage, Engine
from tui_agent.errors import EngineUnavailableError

EngineBuild = Callable[[], Awaitable[Engine]]
"""Builds the engine (`tui_agent.boot.build_engine` for the real one)."""


class EngineSlot:
    """The app's engine: the awaitable screens wait on, and what the first frame shows until it is there."""

    def __init__(
        self, source: Engine | EngineBuild, *, model: str = "", endpoint: str = "", early_page: EarlyPage | None = None
    ) -> None:
        self._build: EngineBuild | None = source if callable(source) else None
        self.ready: Engine | None = None if callable(source) else source
        """The built engine (None while it is built, or when that failed)."""
        self.failure: str | None = None
        """Why the engine could not be built, once that is known."""
        self._model, self._endpoint = model, endpoint
        self.early_page = early_page
        """Reads the resumed session's newest page without the engine (the history view uses it once)."""
        self._done: asyncio.Future[Engine] | None = None
        self._resume_failure_said = False

    @property
    def needs_build(self) -> bool:
        """There is a build to run (once)."""
        return self._build is not None

    @property
    def model(self) -> str:
        """The engine's model, or the one read at boot until it is built."""
        return self.ready.backend.model if self.ready is not None else self._model

    @property
    def endpoint(self) -> str:
        return self.ready.backend.endpoint if self.ready is not None else self._endpoint

    def _future(self) -> asyncio.Future[Engine]:
        if self._done is None:
            self._done = asyncio.get_running_loop().create_future()
            if self.ready is not None:
                self._done.set_result(self.ready)
        return self._done

    async def engine(self) -> ChatBackend:
        """The backend once built; raises `EngineUnavailableError` (saying why) when it could not be."""
        return (await asyncio.shield(self._future())).backend

    async def build(self) -> Engine:
        """Build the engine (run once, by the app's worker); a failure is raised as `EngineUnavailableError`."""
        build, self._build = self._build, None
        if build is None:
            return await asyncio.shield(self._future())
        try:
            engine = await build()
        except asyncio.CancelledError:  # the app is closing: whoever waits goes with it
            self._future().cancel()
            raise
        except Exception as error:
            self.failure = f"tui-agent could not start its engine: {error}"
            failed = EngineUnavailableError(self.failure)
            self._future().set_exception(failed)
            self._future().exception()  # retrieved: a failure nobody awaited is still reported, by the worker
            raise failed from error
        self.ready = engine
        self._future().set_result(engine)
        return engine

    def take_resume_failure(self) -> str | None:
        """Why the session asked for on the command line could not be resumed, once (the first chat screen
        says it inline; a later one does not repeat it)."""
        if self.ready is None or self._resume_failure_said:
            return None
        self._resume_failure_said = True
        return self.ready.resume_failure

    async def close(self) -> None:
        """Close the engine if it was built (a build still running is the worker's to cancel)."""
        if self.ready is not None:
            await self.ready.close()
