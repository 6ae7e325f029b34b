"""Provides `Ignored`: what `.gitignore` files say the index should leave out, as the walk goes down the tree.

Each folder's `.gitignore` applies to what is under it, with git's own rules (negations, `dir/`, `**`, anchored
patterns) through `pathspec`'s `GitIgnoreSpec`; the patterns of the folders above go on applying. The walk starts
at the indexed folder, or at the git work tree holding it, so a repository's root `.gitignore` counts even when
a subfolder is indexed. `.git/info/exclude` and the user's global excludes file are not read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec


@dataclass(frozen=True)
class Ignored:
    """The `.gitignore` rules in force in one folder: each spec with the folder its patterns are relative to."""

    specs: tuple[tuple[Path, GitIgnoreSpec], ...] = ()

    @classmethod
    def under(cls, folder: Path) -> Ignored:
        """The rules of the `.gitignore`s above `folder`, up to the git work tree's root (none outside git)."""
        root = next((parent for parent in (folder, *folder.parents) if (parent / ".git").exists()), None)
        ignored = cls()
        if root is None or root == folder:
            return ignored
        for parent in reversed(folder.relative_to(root).parents):  # root first, down to folder's parent
            ignored = ignored.with_file_in(root / parent)
        return ignored

    def with_file_in(self, folder: Path) -> Ignored:
        """These rules and those of `folder/.gitignore`, if it has one (one that cannot be read is left out)."""
        try:
            lines = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return self
        return Ignored((*self.specs, (folder, GitIgnoreSpec.from_lines(lines))))

    def covers(self, path: str, is_dir: bool) -> bool:
        """Whether the rules leave `path` out (a folder is matched as `name/`, as git does)."""
        target = Path(path)
        ignored = False
        for base, spec in self.specs:
            relative = target.relative_to(base).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(relative)
            if result.include is not None:
                ignored = result.include  # a deeper .gitignore, or a later line, decides last
        return ignored
