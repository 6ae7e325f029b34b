"""Provides the `tui-agent skills` subcommand: the skills the agents are offered here, where each comes from, the
folders read, and the `SKILL.md` files refused or replaced (text, or `--json`).

It reads the config file's `[skills]` table and looks from the working folder, as a chat started here would. It
exits 0 even when files were refused: reporting them is its job.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path
from typing import Any

from tui_agent import paths
from tui_agent.agents.skills import Skills, find_skills, skill_folders
from tui_agent.config import SkillsSettings, resolve_settings
from tui_agent.sanitize import sanitize


def add_parser(subparsers: Any) -> None:
    """Register `skills` on the top-level parser."""
    parser = subparsers.add_parser(
        "skills",
        help="list the skills the agents are offered, where each comes from, and refused files",
        description="List the skills (folders with a SKILL.md) the agents are offered from here: name, "
        "description and file, the folders read (most general first), and every SKILL.md refused or replaced.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Find the skills as a chat started here would, and print them."""
    settings, _ = resolve_settings({}, paths.config_file())
    report = describe(settings.skills, Path.cwd(), Path.home())
    # Names and descriptions come from files anyone may have written: no escape or bidi control is printed.
    print(json.dumps(report, indent=2) if args.json else sanitize(render(report)))
    return 0


def describe(settings: SkillsSettings, cwd: Path, home: Path) -> dict[str, Any]:
    """The skills offered in `cwd` as plain data (what `--json` prints)."""
    shipped, user = paths.shipped_dir("skills"), paths.config_dir()
    found: Skills = find_skills(cwd, settings, user, home, shipped)
    folders = skill_folders(cwd, settings, user, home, shipped) if settings.enabled else []
    return {
        "enabled": settings.enabled,
        "skills": [skill.row() for skill in found.skills],
        "folders": [{"path": str(f.path), "origin": f.origin, "exists": f.path.is_dir()} for f in folders],
        "problems": list(found.problems),
        "replaced": list(found.replaced),
    }


def render(report: dict[str, Any]) -> str:
    """The report as text for a terminal."""
    if not report["enabled"]:
        return "Skills are off ([skills] enabled = false in the config file)."
    lines = ["Skills offered to the agents (the model sees each name and description; see docs/skills.md):", ""]
    if not report["skills"]:
        lines.append("  none: put a folder with a SKILL.md in one of the folders below")
    for skill in report["skills"]:
        lines.append(f"  {skill['name']}  ({skill['origin']})")
        lines += textwrap.wrap(skill["description"], 100, initial_indent="      ", subsequent_indent="      ")
        lines.append(f"      {skill['path']}")
    lines += ["", "Folders read, the most general first (a later one's skill replaces one of the same name):"]
    lines += [f"  {'✓' if f['exists'] else '·'} {f['path']}  ({f['origin']})" for f in report["folders"]]
    for title, key in (("Refused", "problems"), ("Replaced", "replaced")):
        if report[key]:
            lines += ["", f"{title}:", *(f"  {line}" for line in report[key])]
    return "\n".join(lines)
