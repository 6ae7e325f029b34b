"""Provides `plan_patch`: the changes an `apply_patch` call would make to several files, nothing written.

The format is Codex CLI's, the one models are trained on:

    *** Begin Patch
    *** Add File: docs/new.md
    +first line
    +second line
    *** Update File: src/app.py
    @@ def main():
     context line
    -removed line
    +added line
    *** Delete File: old.txt
    *** End Patch

An Add File's lines all start with `+`. An Update File has hunks, each starting with `@@` (the rest of that
line is a hint, ignored): lines starting with a space are context, `-` removed, `+` added. A hunk becomes one
`edit_file` edit (its context and removed lines must occur exactly once in the file; its context and added
lines replace them), so its refusals are `edit_file`'s. Every file is planned before any is written: one
refusal and nothing is changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui_agent.payloads import FileChange
from tui_agent.tools.confinement import shown, writable
from tui_agent.tools.edits import Planned, edit_limit, existing_file, plan_edit, plan_write

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, UPDATE, DELETE = "*** Add File: ", "*** Update File: ", "*** Delete File: "


@dataclass
class _Operation:
    kind: str
    path: str
    lines: list[str] = field(default_factory=list)


def _operations(patch: str) -> list[_Operation]:
    lines = patch.strip().splitlines()
    if not lines or lines[0].strip() != BEGIN or lines[-1].strip() != END:
        raise ValueError(f"a patch starts with '{BEGIN}' and ends with '{END}' (see the tool's description)")
    operations: list[_Operation] = []
    for number, line in enumerate(lines[1:-1], start=2):
        header = next((kind for kind in (ADD, UPDATE, DELETE) if line.startswith(kind)), None)
        if header is not None:
            operations.append(_Operation(header, line[len(header) :].strip()))
        elif not operations:
            raise ValueError(f"line {number}: expected '{ADD}', '{UPDATE}' or '{DELETE}', found {line[:80]!r}")
        elif line.strip() != "*** End of File":
            operations[-1].lines.append(line)
    if not operations:
        raise ValueError("the patch changes no file")
    return operations


def _added(operation: _Operation) -> str:
    for line in operation.lines:
        if not line.startswith("+"):
            raise ValueError(f"{operation.path}: every line of an added file starts with '+', not {line[:80]!r}")
    return "".join(line[1:] + "\n" for line in operation.lines)


def _hunks(operation: _Operation) -> list[dict[str, str]]:
    hunks: list[tuple[list[str], list[str]]] = []
    for line in operation.lines:
        if line.startswith("@@") or not hunks:
            hunks.append(([], []))
            if line.startswith("@@"):
                continue
        old, new = hunks[-1]
        mark, text = (line[:1], line[1:]) if line else (" ", "")
        if mark not in " -+":
            raise ValueError(f"{operation.path}: a hunk line starts with ' ', '-' or '+', not {line[:80]!r}")
        if mark != "+":
            old.append(text)
        if mark != "-":
            new.append(text)
    edits = [{"old": "".join(f"{t}\n" for t in old), "new": "".join(f"{t}\n" for t in new)} for old, new in hunks]
    if not edits or any(not edit["old"] for edit in edits):
        raise ValueError(f"{operation.path}: each hunk needs context or removed lines to find where it goes")
    return edits


def _deletion(path: str) -> Planned:
    target = writable(path)
    found = existing_file(target, shown(target), edit_limit.max_bytes)
    if found is None:
        raise ValueError(f"{path!r} does not exist, so it cannot be deleted")
    return Planned(target, FileChange(shown(target), found[0], None), found[1])


def plan_patch(patch: str) -> list[Planned]:
    """What `apply_patch(patch)` would write, file by file; ValueError naming the file when any is refused."""
    planned: list[Planned] = []
    for operation in _operations(patch):
        if operation.kind == ADD:
            if writable(operation.path).exists():
                raise ValueError(f"{operation.path!r} already exists; change it with '{UPDATE}{operation.path}'")
            planned.append(plan_write(operation.path, _added(operation)))
        elif operation.kind == DELETE:
            planned.append(_deletion(operation.path))
        else:
            planned.append(plan_edit(operation.path, _hunks(operation)))
    paths = [item.change.path for item in planned]
    if len(set(paths)) != len(paths):
        raise ValueError("the patch names a file twice; put all of a file's hunks under one header")
    return planned
