"""The rest of MCP beyond tools, against the real test server (`server.py --capabilities`) in a real process:
progress shown on the call, log messages into the server's log, the working directory as the root, resources
read (and followed from a link), prompts listed and fetched, questions put to the user, sampling answered by the
model (over real HTTP to the offline model) once the user agrees."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.mcp_servers.config import stdio
from tests.fixtures.mcp_servers.tiny_png import tiny_png
from tui_agent.agent.mcp_sampling import ModelSampler
from tui_agent.config import ToolsSettings
from tui_agent.history.redact import Redactor
from tui_agent.llm.client import ChatClient
from tui_agent.offline.server import BackgroundServer
from tui_agent.prices import TokenCounts
from tui_agent.status import ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.tools.mcp.elicitation import Answer, Question, values_of
from tui_agent.tools.mcp.sampling import SamplingRequest, Verdict, shown_messages
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner


@pytest.fixture
async def servers(tmp_path: Path) -> AsyncIterator[McpServers]:
    started = McpServers(
        {"notes": stdio("--capabilities", approval="never")},
        ToolRegistry(ToolsSettings()),
        tmp_path / "mcp",
        redact=Redactor().text,
    )
    started.start()
    await started.registry.settled()
    yield started
    await started.close()


async def call(servers: McpServers, name: str, **arguments: object) -> tuple[ToolCall, list[ToolCall]]:
    seen: list[ToolCall] = []
    (done,) = await ToolRunner(servers.registry).run([ToolCall("c1", name, arguments=arguments)], seen.append)
    return done, seen


async def test_progress_reaches_the_call_while_it_runs(servers: McpServers) -> None:
    done, seen = await call(servers, "countdown", steps=3)
    assert (done.status, done.outcome) == (ToolStatus.DONE, "counted 3")
    shown = [state.progress for state in seen if state.status == ToolStatus.RUNNING and state.progress]
    assert shown[0] == "1/3 · step 1" and set(shown) <= {"1/3 · step 1", "2/3 · step 2", "3/3 · step 3"}


async def test_log_messages_go_to_the_servers_log_not_the_terminal(
    servers: McpServers, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    done, _ = await call(servers, "note", text="the plan")
    assert done.outcome == "noted"
    log = (tmp_path / "mcp" / "notes.log").read_text()
    assert "tui-agent: server log [info] noting the plan" in log
    assert 'tui-agent: server log [warning] {"careful": "the plan"}' in log
    assert "noting" not in capfd.readouterr().err


async def test_the_working_directory_is_the_root(servers: McpServers) -> None:
    done, _ = await call(servers, "roots")
    assert done.outcome == Path.cwd().as_uri()


async def test_resources_are_read_by_uri_and_a_link_can_be_followed(servers: McpServers) -> None:
    spec = servers.registry.get("read_notes_resource")
    assert spec is not None and spec.effect == "read"
    assert (
        "notes://readme (What the notes are)" in spec.description
        and "notes://{name} (A note by name)" in spec.description
    )
    linked, _ = await call(servers, "linked")
    assert "[resource: readme <notes://readme>]" in linked.outcome
    readme, _ = await call(servers, "read_notes_resource", uri="notes://readme")
    assert readme.outcome == "The notes server keeps notes."
    templated, _ = await call(servers, "read_notes_resource", uri="notes://groceries")
    assert templated.outcome == "note groceries"
    image, _ = await call(servers, "read_notes_resource", uri="notes://dot.png")
    assert [ref.mime for ref in image.attachments] == ["image/png"]
    assert list(image.attachment_data.values()) == [tiny_png()]
    missing, _ = await call(servers, "read_notes_resource", uri="elsewhere://x")
    assert missing.status == ToolStatus.FAILED
    assert str(missing.error).startswith("read_notes_resource failed: notes could not read elsewhere://x")


async def test_prompts_are_listed_and_fetched_and_the_screen_lists_both(servers: McpServers) -> None:
    server = servers.servers["notes"]
    assert [prompt.name for prompt in server.prompts] == ["review"]
    messages = await server.get_prompt("review", {"code": "x = 1", "focus": "style"})
    assert messages == [("user", "Review this code for style:\nx = 1")]
    shown = servers.overview("notes")
    assert [(line.name, line.description) for line in shown.prompts] == [
        ("review(code, focus?)", "Review code for a kind of problem")
    ]
    assert [line.name for line in shown.resources] == ["notes://readme", "notes://dot.png", "notes://{name}"]


async def test_a_servers_question_is_put_to_the_user_as_a_form(servers: McpServers) -> None:
    asked: list[Question] = []

    async def accept(question: Question) -> Answer:
        asked.append(question)
        values = values_of(question, {"name": "Ada", "age": "36"})
        assert isinstance(values, dict)
        return Answer("accept", values)

    servers.asker = accept
    done, _ = await call(servers, "ask_name")
    assert done.outcome == "accept: Ada (36)"
    (question,) = asked
    assert (question.server, question.message, question.url) == ("notes", "What is your name?", None)
    assert [(field.name, field.kind, field.required) for field in question.fields] == [
        ("name", "string", True),
        ("age", "integer", False),
    ]
    assert values_of(question, {"name": "", "age": "3"}) == "Name is required"
    assert values_of(question, {"name": "Ada", "age": "old"}) == "Age must be a whole number"

    async def decline(question: Question) -> Answer:
        return Answer("decline")

    servers.asker = decline
    assert (await call(servers, "ask_name"))[0].outcome == "decline"


async def test_with_nobody_to_ask_a_question_is_declined_and_said(servers: McpServers) -> None:
    notices: list[str] = []
    servers.watch(notices.append)
    done, _ = await call(servers, "ask_name")
    assert done.outcome == "decline"
    assert notices == [
        "MCP server notes asked for input ('What is your name?'); declined: nobody can answer in this run "
        "(the app shows a form)."
    ]


@dataclass
class Counted:
    """The part of the agent sampling needs: a real client to the offline model, and the session's count."""

    client: ChatClient
    model: str = "offline"
    counted: list[TokenCounts] = field(default_factory=list)

    def count_aside(self, usage: TokenCounts) -> None:
        self.counted.append(usage)


@pytest.mark.parametrize(
    "offline_server",
    [{"replies": [{"text": "Notes keep notes."}, {"text": "Again."}, {"text": "Allowed."}]}],
    indirect=True,
)
async def test_sampling_is_answered_by_the_model_once_the_user_agrees_and_denied_with_nobody_to_ask(
    servers: McpServers, offline_server: BackgroundServer
) -> None:
    notices: list[str] = []
    servers.watch(notices.append)
    agent = Counted(ChatClient(offline_server.base_url, "offline", api_key="test"))
    servers.sampling.answerer = ModelSampler(agent)

    def chat_requests() -> list[dict[str, Any]]:
        return [record.body or {} for record in offline_server.requests if record.path.endswith("/chat/completions")]

    denied, _ = await call(servers, "summarise", text="x")  # -p: nobody to ask, the server not allowed
    assert denied.status == ToolStatus.FAILED and "--allow-sampling notes" in (denied.error or "")
    assert notices == [
        "MCP server notes asked the model to answer a prompt of its own (sampling); denied (nobody to ask: run "
        "with --allow-sampling notes to allow it)."
    ]
    shown: list[SamplingRequest] = []
    verdicts: Iterator[Verdict] = iter(["deny", "always"])

    async def approve(request: SamplingRequest) -> Verdict:
        shown.append(request)
        return next(verdicts)

    servers.sampling.approver = approve
    denied, _ = await call(servers, "summarise", text="the notes server")
    assert denied.status == ToolStatus.FAILED and "the user declined the sampling request" in (denied.error or "")
    assert not chat_requests() and not agent.counted  # nothing reached the model
    (request,) = shown
    assert (request.server, request.system_prompt, request.max_tokens) == ("notes", "You summarise.", 50)
    assert shown_messages(request) == "system: You summarise.\n\nuser: Summarise: the notes server"
    done, _ = await call(servers, "summarise", text="the notes server")
    assert done.outcome == "summary: Notes keep notes."
    (sent,) = chat_requests()
    assert sent["messages"] == [
        {"role": "system", "content": "You summarise."},
        {"role": "user", "content": "Summarise: the notes server"},
    ]
    assert sent["max_tokens"] == 50 and "tools" not in sent
    assert len(agent.counted) == 1 and agent.counted[0].completion_tokens > 0  # counted in the session
    again, _ = await call(servers, "summarise", text="more")  # "always": not asked again this run
    assert again.outcome == "summary: Again." and len(shown) == 2
    servers.sampling.approver, servers.sampling.allowed = None, {"notes"}  # what `-p --allow-sampling notes` does
    allowed, _ = await call(servers, "summarise", text="x")
    assert allowed.outcome == "summary: Allowed."
