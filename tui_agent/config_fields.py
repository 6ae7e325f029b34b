"""Provides the settings the app's first frame reads — their names, types, limits and defaults — without pydantic.

`RunFields` (the top level: endpoint, model, theme, keys, history file) and `UiFields` (the `[ui]` table) are
plain classes: each annotated attribute is a setting, its value the default, its `Annotated` `Limits` the valid
range. `tui_agent.config` builds the validated models on them (`Settings(RunFields, BaseModel)`,
`UiSettings(UiFields, BaseModel)`), so each setting is declared once. The first frame cannot wait ~40 ms for
pydantic: `read_leniently` fills the same classes from the raw sources, keeping a value only when it has the
field's type and limits (pydantic reports the others once the engine is built, and their defaults stand
meanwhile, as validation's fallbacks do). A widget reads the run's settings where it uses them:
`settings_of(self.app).ui.NAME`.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple, TypeVar

ReasoningMode = Literal["collapsed", "expanded", "hidden"]
"""How the app shows a reply's reasoning: one dimmed line to open, open, or not at all."""
NoticeKind = Literal["auto", "bell", "osc9", "osc777", "off"]
"""How a long turn's end is announced (`tui_agent.ui.turn_notice`)."""
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
Provider = Literal["openai", "anthropic"]
"""The protocol an endpoint speaks (`tui_agent.agent.providers.PROVIDERS` has one entry for each)."""
PROVIDER_KEY_ENV: dict[str, str] = {"openai": DEFAULT_API_KEY_ENV, "anthropic": "ANTHROPIC_API_KEY"}
"""The variable holding the key when `api_key_env` names none, by provider."""


class Limits(NamedTuple):
    """A number setting's valid range, as `Annotated` metadata: `Annotated[int, Limits(ge=1)]`. Ours rather than
    `annotated_types`' (which pydantic validates natively): its ~15 dataclasses cost the first frame ~8 ms."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None

    def holds(self, value: Any) -> bool:
        """Whether `value` is within these limits."""
        return (
            (self.ge is None or value >= self.ge)
            and (self.gt is None or value > self.gt)
            and (self.le is None or value <= self.le)
            and (self.lt is None or value < self.lt)
        )

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        """pydantic validates the same limits as `annotated_types`' (its messages, its JSON schema)."""
        import annotated_types  # loads with pydantic, after the first frame

        known = [
            getattr(annotated_types, name.capitalize())(bound)
            for name, bound in self._asdict().items()
            if bound is not None
        ]
        return handler.generate_schema(Annotated[(source, *known)])


class UiFields:
    """How the app shows things (the `[ui]` table)."""

    reasoning: ReasoningMode = "collapsed"
    """A reply's reasoning (sent by thinking models): "collapsed" shows one dimmed line above the answer that a
    click, Enter or `t` opens; "expanded" shows it open; "hidden" leaves it out (it is still saved)."""
    attach_paste_over: Annotated[int, Limits(ge=1)] = 20_000
    """A paste longer than this many characters is offered as an attachment instead of text in the prompt box."""
    attach_max_bytes: Annotated[int, Limits(ge=1)] = 256_000
    """An attached text file is cut after this many bytes (the model is told it was cut)."""
    notify: NoticeKind = "auto"
    """How a long turn that ends while the terminal is not focused is announced: the terminal's bell, a desktop
    notification (OSC 9 or OSC 777, for terminals that show them), "auto" (picked for the terminal), "off"."""
    notify_after: Annotated[float, Limits(ge=0)] = 10.0
    """Seconds a turn must have taken to be announced."""


class RunFields:
    """The top-level settings the first frame reads (the validated `Settings` has these and the rest)."""

    base_url: str | None = None
    """OpenAI-compatible endpoint; None means the built-in offline model."""
    model: str | None = None
    """Model name sent to the endpoint."""
    api_key_env: str = DEFAULT_API_KEY_ENV
    """Name of the environment variable that holds the API key (the key itself is never stored); with
    `provider = "anthropic"` and none named, ANTHROPIC_API_KEY (`PROVIDER_KEY_ENV`)."""
    provider: Provider = "openai"
    """The protocol the endpoint speaks: OpenAI's chat completions, or Anthropic's Messages API (`--provider`)."""
    offline: bool = False
    """Force the built-in offline model even when an endpoint is configured."""
    theme: str = "tui-agent-dark"
    """Name of the Textual theme to use."""
    db: Path | None = None
    """History database path; None means the platformdirs default."""
    keys: Mapping[str, str] = {}  # read only (a Mapping): a mappingproxy would do, but pydantic cannot copy one
    """Key binding overrides (the `[keys]` table): action name -> key, e.g. `cancel_turn = "ctrl+c"`."""
    ui: UiFields
    """How the app shows things (the `[ui]` table). No default here: `Settings` has its validated table, and
    `read_leniently` gives every nested table its own instance."""


Fields = TypeVar("Fields", RunFields, UiFields)
TABLES = (RunFields, UiFields)
"""The classes of settings: a field of one of these types is a table of the config file."""
_SKIP = object()
_TYPES: dict[type, dict[str, Any]] = {}


def with_provider_key(read: RunFields, raw: Mapping[str, Any]) -> RunFields:
    """`read` with its provider's key variable when the sources named none (the validated `Settings` does the
    same)."""
    if "api_key_env" not in raw or _checked(str, raw["api_key_env"]) is _SKIP:
        read.api_key_env = PROVIDER_KEY_ENV[read.provider]
    return read


def read_leniently(cls: type[Fields], raw: object) -> Fields:
    """`cls` filled from the raw values (a TOML table, merged with the environment and flags): a value is kept
    when it has its field's type and limits, else the default stands. Keys `cls` does not have are ignored."""
    values = raw if isinstance(raw, Mapping) else {}
    read = cls()
    for name, annotation in _fields(cls).items():
        if name in values and (value := _checked(annotation, values[name])) is not _SKIP:
            setattr(read, name, value)
        elif annotation in TABLES:
            setattr(read, name, read_leniently(annotation, {}))
    return read


def settings_of(app: object) -> RunFields:
    """The run's settings as the app holds them (`TuiAgentApp.settings`); the defaults for an app without."""
    settings = getattr(app, "settings", None)
    return settings if isinstance(settings, RunFields) else DEFAULTS


def _fields(cls: type) -> dict[str, Any]:
    """The class's fields and their types (with their limits), resolved once per class."""
    if cls not in _TYPES:
        _TYPES[cls] = typing.get_type_hints(cls, include_extras=True)
    return _TYPES[cls]


def _checked(annotation: Any, value: object) -> object:
    """`value` as a field of type `annotation` holds it, or `_SKIP`. An empty text is no value (as an unset one)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        checked = _checked(args[0], value)
        return (
            checked
            if checked is _SKIP or all(limit.holds(checked) for limit in args[1:] if isinstance(limit, Limits))
            else _SKIP
        )
    if origin in (types.UnionType, typing.Union):
        return next((checked for arg in args if (checked := _checked(arg, value)) is not _SKIP), _SKIP)
    if origin is Literal:
        return value if value in args else _SKIP
    if origin is Mapping:  # a table: each entry of the wrong type is left out alone
        if not isinstance(value, Mapping):
            return _SKIP
        return {str(key): item for key, item in value.items() if _checked(args[1], item) is not _SKIP}
    if annotation in TABLES:
        return read_leniently(annotation, value) if isinstance(value, Mapping) else _SKIP
    return _plain(annotation, value)


def _plain(annotation: Any, value: object) -> object:
    if annotation is type(None) or value == "":
        return _SKIP
    if annotation is bool:
        return value if type(value) is bool else _SKIP
    if annotation is int:
        return value if type(value) is int else _SKIP
    if annotation is float:
        return float(value) if type(value) in (int, float) else _SKIP  # type: ignore[arg-type]
    if annotation is str:
        return value if isinstance(value, str) else _SKIP
    if annotation is Path:
        return Path(value).expanduser() if isinstance(value, str | Path) else _SKIP
    raise TypeError(f"the first frame cannot read a setting of type {annotation!r}: add it to config_fields._plain")


DEFAULTS = read_leniently(RunFields, {})
"""Every setting at its default (what a widget outside the app, in a test, reads)."""
