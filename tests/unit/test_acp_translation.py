"""What `tui-agent acp` makes of an editor's prompt blocks, and of our tool calls: every odd block said, never
dropped without a word, never a crash (the protocol's end to end is tests/e2e/test_acp.py)."""

from __future__ import annotations

import base64
from pathlib import Path

from acp.schema import (
    AudioContentBlock,
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    FileEditToolCallContent,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
)

from tui_agent.acp.permission import decision_of, options_for
from tui_agent.acp.prompt_blocks import Block, read_prompt
from tui_agent.acp.updates import locations, outcome, plan_of, tool_kind
from tui_agent.payloads import FileChange
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def test_a_prompts_blocks_become_its_text_and_attachments_and_what_cannot_be_is_said(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("remember the milk")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2binary")
    blocks: list[Block] = [
        TextContentBlock(type="text", text="look at these"),
        ResourceContentBlock(type="resource_link", name="notes.md", uri=f"file://{tmp_path}/notes.md"),
        ResourceContentBlock(type="resource_link", name="site", uri="https://example.com/page"),
        ResourceContentBlock(type="resource_link", name="gone", uri=f"file://{tmp_path}/gone.md"),
        ResourceContentBlock(type="resource_link", name="blob", uri=f"file://{tmp_path}/blob.bin"),
        ImageContentBlock(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png"),
        ImageContentBlock(type="image", data="not base64!", mime_type="image/png"),
        EmbeddedResourceContentBlock(
            type="resource",
            resource=BlobResourceContents(uri=f"file://{tmp_path}/x.zip", blob=base64.b64encode(b"PK\3\4").decode()),
        ),
        AudioContentBlock(type="audio", data="", mime_type="audio/wav"),
    ]
    prompt = read_prompt(blocks, tmp_path, 1000)
    assert [(a.kind, a.name) for a in prompt.attachments] == [("file", "notes.md"), ("image", "image")]
    assert prompt.attachments[0].text == "remember the milk"
    assert prompt.text.splitlines()[0] == "look at these" and "https://example.com/page" in prompt.text
    said = " | ".join(prompt.problems)
    for why in ("gone.md", "blob.bin", "not valid base64", "x.zip", "audio"):
        assert why in said, said


def test_a_call_shows_its_kind_files_diffs_and_plan(tmp_path: Path) -> None:
    edit = ToolCall(
        "c1",
        "edit_file",
        arguments={"path": "a.py"},
        message_id="m1",
        status=ToolStatus.DONE,
        result="edited a.py",
        file_changes=(FileChange("a.py", b"x = 1\n", b"x = 2\n"), FileChange("img.png", PNG, b"\xff\xfe")),
    )
    assert [tool_kind(n, e) for n, e in [("run_shell", "command"), ("web_fetch", "read"), ("x", None)]] == [
        "execute",
        "fetch",
        "other",
    ]
    assert [place.path for place in locations(edit, tmp_path)] == [str(tmp_path / "a.py"), str(tmp_path / "img.png")]
    shown = outcome(edit, tmp_path)
    diffs = [c for c in shown if isinstance(c, FileEditToolCallContent)]
    assert [(d.path, d.old_text, d.new_text) for d in diffs] == [(str(tmp_path / "a.py"), "x = 1\n", "x = 2\n")]
    todo = ToolCall("c2", "todo", arguments={"items": [{"text": "a", "status": "done"}, {"text": "b"}]})
    assert plan_of(todo) is None  # not run yet
    plan = plan_of(todo.replace(status=ToolStatus.DONE))
    assert plan is not None and [(e.content, e.status) for e in plan.entries] == [("a", "completed"), ("b", "pending")]


def test_the_editors_choice_is_our_decision_and_anything_else_denies() -> None:
    edit = ToolCall("c1", "write_file", arguments={"path": "a.py", "content": ""})
    offered = options_for(edit)
    assert [o.option_id for o in offered] == ["allow_once", "allow_always", "allow_file", "deny"]
    assert [o.option_id for o in options_for(ToolCall("c2", "run_shell", command="ls"))] == [
        "allow_once",
        "allow_always",
        "deny",
    ]
    assert decision_of("allow_file", offered) is Decision.ALLOW_FILE
    assert decision_of("allow_edits", offered) is Decision.DENY  # a decision we did not offer
    assert decision_of("whatever", offered) is Decision.DENY
