"""Provides `match_tools`: which of the offered tools a prompt asks for, with sensible arguments.

Rules for the kinds of tool tui-agent ships (weather, calculator, clock, files, shell), matched on the
tool's name and the prompt's words, then a generic rule: a prompt naming a tool calls it, filling its
required parameters from quoted text and numbers. The sentence saying what the model is about to do
leads the arguments as `to_user` when the schema has that parameter, as the tutorial's model does;
otherwise `match_intent` returns it to be sent as the reply's text, so no tool-calling reply is silent.

The phrases it understands (docs/offline-model.md lists them too): "weather in CITY (and CITY...)", arithmetic
("what is 2 + 3 * 4", "calculate 6 x 7"), "what time is it (in CITY)", "list the files (in PATH)", "read
FILE", "search the files for 'TEXT'", "run CMD" / "run `CMD`" / "execute CMD", a tool's own name, and
"ask the AGENT (and the AGENT) TASK" when `ask_<agent>` tools are offered (one call each, with the task),
"fetch URL" (read, open, get, summarise) when `web_fetch` is offered, and the edit phrases of `intents_edit`
("create hello.py that prints hi", "in hello.py change hi to hello"), and the skill phrases of `intents_skills`
("use the NAME skill", "read FILE from the NAME skill").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tui_agent.offline import intents_docs, intents_skills
from tui_agent.offline.intents_edit import edit_files
from tui_agent.offline.intents_plan import todo_list
from tui_agent.offline.scenario import ToolCallSpec

Arguments = dict[str, Any]
LOCATION_KEYS = ("location", "city", "place", "where")
TIME_ZONES = {
    "paris": "Europe/Paris",
    "london": "Europe/London",
    "berlin": "Europe/Berlin",
    "madrid": "Europe/Madrid",
    "rome": "Europe/Rome",
    "tokyo": "Asia/Tokyo",
    "beijing": "Asia/Shanghai",
    "delhi": "Asia/Kolkata",
    "sydney": "Australia/Sydney",
    "new york": "America/New_York",
    "san francisco": "America/Los_Angeles",
    "los angeles": "America/Los_Angeles",
    "chicago": "America/Chicago",
    "utc": "UTC",
}
UNQUOTED_COMMAND = re.compile(
    r"\b(?:run|execute)\s+([\w./~-][^?!;]*?)(?:\s+(?:for me|please))?[\s?.!]*$", re.IGNORECASE
)
NOT_COMMANDS = frozenset(
    {
        "a",
        "an",
        "the",
        "this",
        "that",
        "it",
        "my",
        "your",
        "some",
        "into",
        "out",
        "away",
        "to",
        "through",
        "over",
        "around",
        "across",
        "off",
        "on",
        "in",
        "for",
        "me",
        "you",
        "them",
    }
)
WEB_ADDRESS = re.compile(r"https?://[^\s<>\"'`]*[^\s<>\"'`.,;:!?)]")
WEB_VERBS = re.compile(r"\b(fetch|read|open|get|download|summari[sz]e|look at)\b", re.IGNORECASE)
EXPRESSION = re.compile(r"[-+(]*\d[\d.\s]*(?:(?:\*\*|//|[-+*/%^x×])\s*[(]*\s*\d[\d.\s]*[)]*\s*)+")


class Tool:
    """One offered tool's name and parameter schema."""

    def __init__(self, schema: dict[str, Any]) -> None:
        function = schema.get("function") or {}
        parameters = function.get("parameters") or {}
        self.name = str(function.get("name", ""))
        self.properties: dict[str, Any] = parameters.get("properties") or {}
        self.required: list[str] = list(parameters.get("required") or [])
        self.said: str | None = None
        """The sentence of the last call that could not carry it as `to_user` (the reply's text instead)."""

    def key(self, *candidates: str) -> str | None:
        """The first candidate parameter the tool has, else its first required one."""
        return next((k for k in candidates if k in self.properties), None) or next(iter(self.required), None)

    def call(self, arguments: Arguments, sentence: str, speak: bool = True) -> ToolCallSpec:
        if speak and "to_user" in self.properties:
            arguments = {"to_user": sentence, **arguments}  # the model speaks first, as a real one tends to
        elif speak:
            self.said = sentence
        return ToolCallSpec(name=self.name, arguments=arguments)


def places_in(prompt: str) -> list[str]:
    """Places named after "in"/"for"/"at": "weather in Paris and Tokyo?" → ["Paris", "Tokyo"]."""
    found = re.search(r"\b(?:in|for|at)\s+([^?.!;]+)", prompt, flags=re.IGNORECASE)
    if not found:
        return []
    places: list[str] = []
    for part in re.split(r"\s*(?:,|\band\b|&)\s*", found.group(1).strip()):
        part = re.sub(r"^(?:the)\s+", "", part.strip(), flags=re.IGNORECASE)
        if not part:
            continue
        if places and len(part) <= 2:  # "San Francisco, CA" stays one place
            places[-1] = f"{places[-1]}, {part}"
        else:
            places.append(part)
    return places


def quoted_in(prompt: str) -> list[str]:
    """Text in backticks or quotes, in order."""
    return [next(g for g in match if g) for match in re.findall(r"`([^`]+)`|\"([^\"]+)\"|'([^']+)'", prompt)]


def _weather(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    if "weather" not in tool.name.lower() or not re.search(r"weather|temperature|forecast", prompt, re.IGNORECASE):
        return []
    key, places = tool.key(*LOCATION_KEYS), places_in(prompt)
    if key is None or not places:
        return []
    sentence = f"Let me check the weather in {' and '.join(places)} for you."
    return [tool.call({key: place}, sentence, speak=i == 0) for i, place in enumerate(places)]


def _calculator(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    found = EXPRESSION.search(prompt)
    if not re.search(r"calc|math|comput", tool.name, re.IGNORECASE) or found is None:
        return []
    key = tool.key("expression", "expr", "formula")
    expression = re.sub(r"\s*[x×]\s*", " * ", found.group().strip())
    return [tool.call({key: expression}, f"Let me work out {expression}.")] if key else []


def _clock(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    if not re.search(r"time|clock", tool.name, re.IGNORECASE) or not re.search(r"\btime\b", prompt, re.IGNORECASE):
        return []
    key = tool.key("timezone", "time_zone", "tz", "zone")
    places = places_in(prompt)
    zone = TIME_ZONES.get(places[0].lower(), places[0]) if places else "UTC"
    arguments = {key: zone} if key else {}
    return [tool.call(arguments, f"Let me look at the clock{f' in {places[0]}' if places else ''}.")]


def _files(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    name, words = tool.name.lower(), prompt.lower()
    paths = quoted_in(prompt) or re.findall(r"[\w./-]+\.\w+", prompt)
    if name in ("list_directory", "list_files") and re.search(r"\b(list|show)\b.*\b(files|folder|directory)\b", words):
        key = tool.key("path", "directory")
        return [tool.call({key: paths[0] if paths else "."} if key else {}, "Let me look at the folder.")]
    if name == "read_file" and re.search(r"\b(read|open|show)\b", words) and paths:
        return [tool.call({tool.key("path") or "path": paths[0]}, f"Let me read {paths[0]}.")]
    if name == "search_files" and re.search(r"\b(search|grep|find)\b", words) and quoted_in(prompt):
        return [tool.call({tool.key("text", "query") or "text": quoted_in(prompt)[0]}, "Let me search the files.")]
    return []


def _web(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    """ "fetch https://…" (read, open, get, summarise): `web_fetch` with the first address in the prompt."""
    found = WEB_ADDRESS.search(prompt)
    if tool.name != "web_fetch" or found is None or not WEB_VERBS.search(prompt):
        return []
    return [tool.call({tool.key("url") or "url": found.group(0)}, f"Let me fetch {found.group(0)}.")]


def _shell(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    if "shell" not in tool.name.lower() or not re.search(r"\b(run|execute|shell)\b", prompt, re.I):
        return []
    command = next(iter(quoted_in(prompt)), None) or unquoted_command(prompt)
    if not command:
        return []
    return [tool.call({tool.key("command", "cmd") or "command": command}, f"I'll run `{command}`.")]


def unquoted_command(prompt: str) -> str | None:
    """The command in "run ls -la for me" (what follows run/execute, to the end); None for "run a marathon"."""
    found = UNQUOTED_COMMAND.search(prompt)
    if found is None or found.group(1).split()[0].lower() in NOT_COMMANDS:
        return None
    return found.group(1)


def _named(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    """A prompt naming the tool calls it; required parameters come from quoted text, the rest, numbers."""
    lowered, name = prompt.lower(), tool.name.lower()
    if not name or (name not in lowered and name.replace("_", " ") not in lowered):
        return []
    texts = quoted_in(prompt)
    rest = re.split(re.escape(name.replace("_", " ")) + "|" + re.escape(name), prompt, flags=re.IGNORECASE)[-1]
    texts.append(rest.strip(" :,.?!") or prompt)
    numbers = [int(n) for n in re.findall(r"\b\d+\b", prompt)]
    arguments: Arguments = {}
    for key in tool.required:
        kind = (tool.properties.get(key) or {}).get("type", "string")
        if kind == "string" and texts:
            arguments[key] = texts.pop(0)
        elif kind in ("integer", "number") and numbers:
            arguments[key] = numbers.pop(0)
        else:
            return []
    return [tool.call(arguments, f"I'll use {tool.name}.")]


RULES: tuple[Callable[[Tool, str], list[ToolCallSpec]], ...] = (
    _weather,
    _calculator,
    _clock,
    _web,
    edit_files,
    intents_docs.docs,
    intents_skills.skills,  # before `_files`: "read FILE from the NAME skill" is not `read_file`
    _files,
    _shell,
    todo_list,
    _named,
)


def match_tools(prompt: str, schemas: list[dict[str, Any]]) -> list[ToolCallSpec]:
    """Tool calls the prompt asks for (first matching rule, in rule order), or an empty list."""
    return match_intent(prompt, schemas)[0]


def delegations(tools: list[Tool], prompt: str) -> list[ToolCallSpec]:
    """ "ask the researcher (and the coder) TASK": one `ask_<agent>` call per agent named, each with the task."""
    asked = re.search(r"\bask\s+(.*)", prompt, flags=re.IGNORECASE | re.DOTALL)
    agents = {tool.name.removeprefix("ask_"): tool for tool in tools if tool.name.startswith("ask_")}
    if asked is None or not agents:
        return []
    named = {name: found.end() for name in agents if (found := _agent_named(name, asked.group(1)))}
    if not named:
        return []
    rest = asked.group(1)[max(named.values()) :]
    task = re.sub(r"^[\s,:]*(?:(?:to|about|for|whether|if)\b)?\s*", "", rest).strip() or prompt
    task = task[:1].upper() + task[1:]
    said = f"I'll ask the {' and the '.join(named)}."
    return [agents[name].call({"task": task}, said, speak=i == 0) for i, name in enumerate(named)]


def _agent_named(name: str, text: str) -> re.Match[str] | None:
    return re.search(rf"\b{re.escape(name)}s?\b", text, flags=re.IGNORECASE)


def match_intent(prompt: str, schemas: list[dict[str, Any]]) -> tuple[list[ToolCallSpec], str | None]:
    """The calls the prompt asks for, and the sentence to send as text when no call could carry it."""
    tools = [Tool(schema) for schema in schemas]
    if asks := delegations(tools, prompt):  # before the tool rules: the task may well name a tool's subject
        return asks, next((tool.said for tool in tools if tool.said), None)
    for rule in RULES:
        for tool in tools:
            calls = rule(tool, prompt)
            if calls:
                return calls, tool.said
    return [], None
