"""An export shows each file a tool call changed as a diff (Markdown and JSON), never the bytes."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from tui_agent.history.export import to_json, to_markdown
from tui_agent.history.models import Message, Session, ToolCall
from tui_agent.payloads import FileChange
from tui_agent.status import MessageStatus, Role, ToolStatus

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_each_change_is_exported_as_a_diff() -> None:
    changes = (
        FileChange("hello.py", b"print('hi')\n", b"print('hello')\n"),
        FileChange("new.txt", None, b"one\ntwo\n"),
        FileChange("blob.bin", b"\0\1", b"\0\2"),
    )
    call = ToolCall(
        "c1", "edit_file", '{"path": "hello.py"}', status=ToolStatus.DONE, result="edited", file_changes=changes
    )
    message = Message(
        "m1", "s1", 0, Role.ASSISTANT, "", MessageStatus.COMPLETE, None, None, None, WHEN, WHEN, tool_calls=[call]
    )
    session = Session("s1", "edits", WHEN, WHEN)
    markdown = to_markdown(session, [message])
    assert (
        "Changed `hello.py` +1 −1:\n\n```diff\n--- a/hello.py\n+++ b/hello.py\n"
        "@@ -1 +1 @@\n-print('hi')\n+print('hello')\n```" in markdown
    )
    assert "Changed `new.txt` +2 −0:" in markdown and "--- /dev/null\n+++ b/new.txt" in markdown
    assert "(binary content changed)" in markdown
    [exported] = json.loads(to_json(session, [message]))["messages"][0]["tool_calls"]
    assert exported["file_changes"][0] == {
        "path": "hello.py",
        "added": 1,
        "removed": 1,
        "diff": "--- a/hello.py\n+++ b/hello.py\n@@ -1 +1 @@\n-print('hi')\n+print('hello')\n",
    }
    assert [change["path"] for change in exported["file_changes"]] == ["hello.py", "new.txt", "blob.bin"]
