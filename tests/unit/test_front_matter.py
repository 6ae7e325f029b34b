"""The front matter of command files and SKILL.md: the shapes Claude Code's, opencode's and the agent-skills files
use, YAML the two hand-written parsers it replaced could not read, and blocks that are not YAML said, never raised."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_agent import front_matter, paths
from tui_agent.front_matter import split_front_matter


def test_the_shapes_command_and_skill_files_use() -> None:
    matter = split_front_matter(
        "---\n"
        "name: 'quoted'\n"
        "description: >-\n"
        "  Folded over\n"
        "  two lines.\n"
        "license: MIT  # a comment\n"
        "metadata:\n"
        "  version: 1\n"
        'note: "a \\"quote\\""\n'
        "allowed-tools: [read_file, run_shell]\n"
        "arguments:\n"
        "  - file\n"
        "  - focus\n"
        "version: 1.10\n"
        "disable-model-invocation: no\n"
        "---\n"
        "# Body\n"
    )
    assert matter.values == {
        "name": "quoted",
        "description": "Folded over two lines.",
        "license": "MIT",
        "note": 'a "quote"',
        "allowed-tools": ["read_file", "run_shell"],
        "arguments": ["file", "focus"],
        "version": "1.10",  # the text written: not the number 1.1
        "disable-model-invocation": "no",  # nor the boolean False
    }
    assert matter.body == "# Body\n" and not matter.problems
    assert matter.text("allowed-tools") == "read_file run_shell" and matter.names("arguments") == ["file", "focus"]
    assert matter.raw["allowed-tools"] == "[read_file, run_shell]" and matter.raw["note"] == 'a "quote"'
    plain = split_front_matter("no header\n")
    assert (plain.values, plain.body, plain.problems) == ({}, "no header\n", [])


def test_yaml_the_hand_written_parsers_could_not_read() -> None:
    matter = split_front_matter(
        "\ufeff---\r\n"
        "description: |\r\n"
        "  Review a file.\r\n"
        "  Bugs first.\r\n"
        'hint: "Use # for headings"  # a comment after a quoted value\r\n'
        'greeting: "caf\\u00e9\\tbar"\r\n'
        'tools: ["read, then write",\r\n'
        "        run_shell]\r\n"
        "items:\r\n"
        "- one\r\n"
        "- two\r\n"
        "---\r\n"
        "Body\r\n"
    )
    assert matter.values == {
        "description": "Review a file.\nBugs first.\n",
        "hint": "Use # for headings",
        "greeting": "café\tbar",
        "tools": ["read, then write", "run_shell"],
        "items": ["one", "two"],
    }
    assert matter.body == "Body\r\n" and not matter.problems


def test_a_block_that_is_not_yaml_is_read_key_by_key_and_what_cannot_be_is_said() -> None:
    # Claude Code's own example: `[pr] [branch]` is a hint as written, not YAML; it costs the other keys nothing.
    hinted = split_front_matter(
        "---\nargument-hint: [pr] [branch]\ndescription: Review: bugs first\nmodel: qwen3:8b\n---\nLook at PR $1."
    )
    assert hinted.values == {
        "argument-hint": "[pr] [branch]",
        "description": "Review: bugs first",
        "model": "qwen3:8b",
    }
    assert hinted.raw["argument-hint"] == "[pr] [branch]" and not hinted.problems
    assert split_front_matter("---\nargument-hint: [file]\n---\n").raw["argument-hint"] == "[file]"

    nested = split_front_matter("---\ndescription: ok\n  nested: map\nstray line\nagent: coder\n---\nBody")
    assert nested.values == {"description": "ok", "agent": "coder"} and nested.body == "Body"
    assert nested.problems == [
        "front matter line 4 is not `key: value`: left out",
        "front matter `description` (lines 2-3) is not valid YAML: its first line kept as text",
    ]
    listed = split_front_matter("---\n- a list\n- not keys\n---\nBody")
    assert listed.values == {} and listed.problems == ["the front matter is not a list of `key: value` lines: left out"]
    unclosed = split_front_matter("---\ndescription: never closed\nBody")
    assert unclosed.body.startswith("---") and unclosed.values == {}
    assert unclosed.problems == ["the front matter opened by `---` on the first line is never closed by `---`"]


YAML_SIGNS = list("aZ09_-.:/#'\"[]{},&*!|>%@`?() \t\\~") + ["\u00e9", "\u00a0", "\u2028", "\x85"]
LINE_TEXT = st.text(alphabet=st.sampled_from(YAML_SIGNS), max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["name", "description", "model", "x", "y_z"]), LINE_TEXT), max_size=4))
def test_blocks_read_without_pyyaml_read_as_pyyaml_reads_them(lines: list[tuple[str, str]]) -> None:
    """A block of `key: plain text` lines skips PyYAML (its import is ~15 ms of every start): when the quick reader
    takes a block, its values are what PyYAML's text loader makes of it, and anything else is left to PyYAML."""
    block = [f"{key}: {value}" for key, value in lines]
    quick = front_matter._plain_lines(block)
    if quick is None:
        return
    loaded = yaml.load("\n".join(block), Loader=front_matter._text_loader())
    assert quick == (front_matter._strings(loaded) if loaded is not None else {})  # no lines: no values


def test_the_shipped_skill_and_plain_command_files_are_read_without_pyyaml() -> None:
    """The one shipped skill's block is plain `key: value` lines, so a start that finds it imports no PyYAML;
    a block that is not plain still goes to PyYAML (a folded description, a comment, a nested key)."""
    shipped = paths.shipped_dir("skills") / "tui-agent-plugin" / "SKILL.md"
    block = shipped.read_text(encoding="utf-8").split("---\n")[1].splitlines()
    assert front_matter._plain_lines(block) is not None
    assert front_matter._plain_lines(["name: a", "description: b c (d) e.g. f/g, h"]) == {
        "name": "a",
        "description": "b c (d) e.g. f/g, h",
    }
    for not_plain in (["description: >-", "  folded"], ["license: MIT  # a comment"], ["a: b", "a: c"], ["a: b: c"]):
        assert front_matter._plain_lines(not_plain) is None
