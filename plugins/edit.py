"""Edit plugin: `write_file` creates or replaces a file, `edit_file` replaces exact text in one, `apply_patch`
changes several (Codex CLI's patch format, `tui_agent.tools.patches`).

All three ask before they run (the approval dialog shows the diff) and return the changes they made
(`ToolResult.changes`), which the tool panel, `-p`, history and rewind use. They are confined to the working
directory like the read tools (`tui_agent.tools.confinement`: no `..`, absolute path, symlink or hard link
leads out, and `.git/` is never written); what they refuse and what they keep of a file (encoding, BOM, line
endings, mode bits, final newline, atomic writes) is in `tui_agent.tools.edits` and docs/editing.md.
"""

from __future__ import annotations

from tui_agent.file_diffs import line_counts
from tui_agent.tools import tool
from tui_agent.tools.edits import plan_edit, plan_write, write_atomically
from tui_agent.tools.patches import plan_patch
from tui_agent.tools.results import ToolResult


@tool(approval="ask", effect="edit")
def write_file(path: str, content: str) -> ToolResult:
    """Create a text file, or replace all of an existing one, inside the working directory.

    Args:
        path: File to write, relative to the working directory (missing folders are created).
        content: The whole new content of the file.
    """
    planned = plan_write(path, content)
    write_atomically(planned)
    added, removed = line_counts(planned.change)
    verb = "created" if planned.change.before is None else "wrote"
    return ToolResult(f"{verb} {planned.change.path} (+{added} −{removed})", changes=[planned.change])


@tool(approval="ask", effect="edit")
def edit_file(path: str, edits: list[dict[str, str]]) -> ToolResult:
    """Change a text file inside the working directory by replacing exact text; prefer it to write_file for
    changes to an existing file.

    Args:
        path: File to change, relative to the working directory.
        edits: Replacements made in order, each {"old": exact text that occurs exactly once in the file
            (copy it with its indentation; add surrounding lines to make it unique), "new": its replacement}.
    """
    planned = plan_edit(path, edits)
    if planned.change.before == planned.change.after:
        return ToolResult(f"{planned.change.path} unchanged: the edits replace text with the same text")
    write_atomically(planned)
    added, removed = line_counts(planned.change)
    count = f"{len(edits)} replacements" if len(edits) > 1 else "1 replacement"
    return ToolResult(f"edited {planned.change.path}: {count} (+{added} −{removed})", changes=[planned.change])


@tool(approval="ask", effect="edit")
def apply_patch(patch: str) -> ToolResult:
    """Change several files at once with a patch (every file is checked before any is written). Format: a line
    `*** Begin Patch`; then for each file `*** Add File: PATH` and its lines, each after a `+`; or `*** Update
    File: PATH` and hunks, each starting with a line `@@` and made of lines after ` ` (context, enough that the
    hunk matches exactly once), `-` (removed) or `+` (added); or `*** Delete File: PATH`; last `*** End Patch`.

    Args:
        patch: The whole patch text, from `*** Begin Patch` to `*** End Patch`, lines separated by newlines.
    """
    planned = plan_patch(patch)
    for item in planned:
        write_atomically(item)
    lines = [f"{item.change.path} +{line_counts(item.change)[0]} −{line_counts(item.change)[1]}" for item in planned]
    return ToolResult("patched: " + ", ".join(lines), changes=[item.change for item in planned])
