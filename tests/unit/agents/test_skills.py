"""Skills: which skill folders are found and in which order, their front matter, refusals, reading a skill's files
(confined to its folder), the listing the model is told within the cap, a profile's opt-out, `tui-agent skills`,
and `-p` loading one through the offline model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent.agent.skill_tools import INTRO, load_skill_spec, skill_listing
from tui_agent.agents.profiles import AgentProfile
from tui_agent.agents.skills import LOAD_TOOL, READ_TOOL, Skill, Skills, find_skills
from tui_agent.cli import main
from tui_agent.config import SkillsSettings
from tui_agent.offline.intents import match_tools

ON = SkillsSettings()


def skill(folder: Path, name: str, description: str = "Does a thing.", body: str = "Steps.") -> Path:
    """A skill folder `folder/name` with its SKILL.md (mode 644)."""
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
    path.chmod(0o644)
    return path


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """Every kind of folder skills are found in, each with a skill; `web` (the working folder) is two folders below
    a git root."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    web = root / "app" / "web"
    web.mkdir(parents=True)
    folders = {
        "shipped": tmp_path / "shipped",
        "home": tmp_path / "home",
        "user": tmp_path / "config",
        "extra": tmp_path / "extra",
        "root": root,
        "web": web,
    }
    skill(folders["shipped"], "example", "Shipped.")
    skill(folders["home"] / ".claude" / "skills", "pdf-forms", "From Claude's folder.")
    skill(folders["home"] / ".agents" / "skills", "release-notes", "From the shared folder.")
    skill(folders["user"] / "skills", "pdf-forms", "The user's own wins over Claude's folder.")
    skill(folders["extra"], "extra-one", "From a folder the config names.")
    skill(root / ".agents" / "skills", "release-notes", "The project's wins over the user's.")
    skill(web / ".tui-agent" / "skills", "web-style", "The nearest folder's.")
    skill(tmp_path / ".agents" / "skills", "above-git", "Not read: above the git root.")
    return folders


def found(places: dict[str, Path], settings: SkillsSettings = ON) -> Skills:
    extra = SkillsSettings(**{**settings.model_dump(), "folders": [places["extra"]]})
    return find_skills(places["web"], extra, places["user"], places["home"], places["shipped"])


def test_skills_come_from_shipped_user_shared_config_and_project_folders_the_nearer_winning(
    places: dict[str, Path],
) -> None:
    skills = found(places)

    described = {one.name: (one.description, one.origin) for one in skills.skills}
    assert described == {
        "example": ("Shipped.", "shipped"),
        "extra-one": ("From a folder the config names.", str(places["extra"])),
        "pdf-forms": ("The user's own wins over Claude's folder.", "user"),
        "release-notes": ("The project's wins over the user's.", "project .agents/skills"),
        "web-style": ("The nearest folder's.", "project .tui-agent/skills"),
    }
    assert skills.names() == sorted(described)  # listed by name
    assert not skills.problems
    assert len(skills.replaced) == 2 and any("release-notes" in line for line in skills.replaced)

    own_only = found(places, SkillsSettings(shared=False, shipped=False))
    assert own_only.names() == ["extra-one", "pdf-forms", "web-style"]
    assert own_only.get("pdf-forms") is not None and own_only.get("pdf-forms").origin == "user"  # type: ignore[union-attr]
    assert found(places, SkillsSettings(enabled=False)) == Skills()


def test_bad_skill_files_are_refused_with_a_sentence_and_the_rest_still_load(tmp_path: Path) -> None:
    folder = tmp_path / "skills"
    skill(folder, "good")
    shared = skill(folder, "shared", "Anyone could have written this.")
    shared.chmod(0o666)
    skill(folder, "Bad_Name")
    (folder / "no-description" / "SKILL.md").parent.mkdir()
    (folder / "no-description" / "SKILL.md").write_text("---\nname: no-description\n---\nbody\n")
    (folder / "unclosed" / "SKILL.md").parent.mkdir()
    (folder / "unclosed" / "SKILL.md").write_text("---\nname: unclosed\ndescription: x\n")
    (folder / "not-a-skill").mkdir()  # no SKILL.md: not a skill, nothing to say

    skills = find_skills(
        tmp_path, SkillsSettings(folders=[folder], shared=False, shipped=False), tmp_path, tmp_path, tmp_path
    )

    assert skills.names() == ["good"]
    problems = "\n".join(skills.problems)
    assert len(skills.problems) == 4, problems
    assert f"{shared}: " in problems and "chmod o-w" in problems
    assert "'Bad_Name' is not a skill name" in problems
    assert "no `description`" in problems
    assert "never closed" in problems


def test_a_skill_reads_only_its_own_files(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "forms", body="Fill the form with `scripts/fill.py`.")
    folder = tmp_path / "skills" / "forms"
    (folder / "scripts").mkdir()
    (folder / "scripts" / "fill.py").write_text("print('filled')\n")
    (folder / "reference.md").write_text("r" * 5000)
    (folder / "logo.png").write_bytes(b"\x89PNG\x00\x00")
    (folder / ".hidden").write_text("not listed")
    (tmp_path / "secret.txt").write_text("outside")
    (folder / "escape.txt").symlink_to(tmp_path / "secret.txt")
    [forms] = find_skills(tmp_path, SkillsSettings(shared=False, shipped=False), tmp_path, tmp_path, tmp_path).skills

    assert forms.instructions(1000) == "Fill the form with `scripts/fill.py`."
    assert forms.files() == (["escape.txt", "logo.png", "reference.md", "scripts/fill.py"], 0)
    assert forms.read("scripts/fill.py", 1000) == "print('filled')\n"
    cut = forms.read("reference.md", 1024)
    assert cut.startswith("r" * 1024) and "r" * 1025 not in cut and "5,000 bytes" in cut
    for outside in ("../../secret.txt", str(tmp_path / "secret.txt"), "escape.txt", "", "."):
        with pytest.raises(ValueError, match="is not a file of the skill"):
            forms.read(outside, 1000)
    with pytest.raises(ValueError, match="binary"):
        forms.read("logo.png", 1000)


def test_the_model_is_told_names_and_descriptions_within_the_cap_and_loads_a_body(tmp_path: Path) -> None:
    many = Skills(tuple(Skill(f"skill-{n:02}", "d" * 300, tmp_path / f"skill-{n:02}", "user") for n in range(40)))

    whole = skill_listing(Skills(many.skills[:2]), 4096)
    assert whole == "\n".join([INTRO, f"- skill-00: {'d' * 300}", f"- skill-01: {'d' * 300}"])
    listing = skill_listing(many, 4096)
    assert len(listing) <= 4096
    assert f"- skill-00: {'d' * 159}…" in listing  # shortened first
    assert "- also (load one to see what it is for): " in listing and "skill-39" in listing  # then named only

    skill(tmp_path / "skills", "forms", body="Fill the form.")
    (tmp_path / "skills" / "forms" / "reference.md").write_text("ref")
    skills = find_skills(tmp_path, SkillsSettings(shared=False, shipped=False), tmp_path, tmp_path, tmp_path)
    spec = load_skill_spec(skills, 1000, 4096)
    assert spec.name == LOAD_TOOL and spec.effect == "read" and spec.approval == "never"
    assert "- forms: Does a thing." in spec.description
    answer = spec.func(name="forms")
    assert f"its folder is {tmp_path / 'skills' / 'forms'}" in answer
    assert "Fill the form." in answer and "\n- reference.md" in answer
    with pytest.raises(ValueError, match="there is no skill 'nope'; the skills are: forms"):
        spec.func(name="nope")


def test_a_profile_may_opt_out_of_skills_even_with_every_tool() -> None:
    assert AgentProfile(name="plain").allows_tool(LOAD_TOOL) and AgentProfile(name="plain").allows_tool(READ_TOOL)
    assert not AgentProfile(name="plain", skills=False).allows_tool(READ_TOOL)
    assert not AgentProfile(name="plain", skills=False, tools=["load_skill"]).allows_tool(LOAD_TOOL)
    assert AgentProfile(name="plain", skills=False).allows_tool("read_file")
    assert not AgentProfile(name="critic", tools=[]).allows_tool(LOAD_TOOL)  # `tools` decides as for any tool
    assert AgentProfile(name="coder", tools=["load_skill"]).allows_tool(LOAD_TOOL)


def test_offline_phrases_load_a_skill_and_read_its_file() -> None:
    schemas = [
        {"type": "function", "function": {"name": name, "parameters": {"properties": props, "required": list(props)}}}
        for name, props in (
            ("read_file", {"path": {"type": "string"}}),
            (LOAD_TOOL, {"name": {"type": "string"}}),
            (READ_TOOL, {"skill": {"type": "string"}, "path": {"type": "string"}}),
        )
    ]
    [load] = match_tools("Use the pdf-forms skill to fill this in", schemas)
    assert (load.name, load.arguments) == (LOAD_TOOL, {"name": "pdf-forms"})
    [read] = match_tools("read scripts/fill.py from the pdf-forms skill", schemas)
    assert (read.name, read.arguments) == (READ_TOOL, {"skill": "pdf-forms", "path": "scripts/fill.py"})


def test_skills_command_and_p_load_a_project_skill_through_the_offline_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    (work / ".git").mkdir(parents=True)
    skill(work / ".agents" / "skills", "haiku", "Answer in a haiku.", body="Write five, seven, five syllables.")
    broken = skill(work / ".agents" / "skills", "broken")
    broken.chmod(0o666)
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    assert main(["skills", "--json"]) == 0
    report = json.loads(capfd.readouterr().out)
    assert [(row["name"], row["origin"]) for row in report["skills"]] == [
        ("haiku", "project .agents/skills"),
        ("tui-agent-plugin", "shipped"),
    ]
    assert len(report["problems"]) == 1 and str(broken) in report["problems"][0]
    assert main(["skills"]) == 0
    text = capfd.readouterr().out
    assert "  haiku  (project .agents/skills)\n      Answer in a haiku." in text and "Refused:" in text

    assert main(["--offline", "-p", "Use the haiku skill to describe autumn"]) == 0
    out, err = capfd.readouterr()
    assert '[tool] load_skill({"name": "haiku"}) done' in err, err
    assert "Write five, seven, five syllables." in out
    assert "Skill refused: " in err and str(broken) in err
