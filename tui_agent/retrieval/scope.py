"""Provides which folders `search_docs` searches: the working directory, then the run's docs folders
(`[retrieval] folders` in config and each `--docs DIR`).

The composition root (`services.build_agent`) hands the run's docs folders to `use`; the `search_docs` plugin,
loaded by file and given nothing but its arguments, reads them back with `docs_folders` (one run per process).
`searched` orders and trims a list of folders for one index: the first stays first (citations are relative to
it), a folder inside another one listed is left out (its files are the outer folder's already), and a repeated
one is listed once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

_docs: list[tuple[Path, ...]] = [()]


def resolved(folders: Iterable[Path | str], base: Path | None = None) -> list[Path]:
    """`folders` as absolute paths: `~` expanded, a relative one taken from `base` (the working directory)."""
    start = Path.cwd() if base is None else base
    return [(start / Path(folder).expanduser()).resolve() for folder in folders]


def missing(folders: Iterable[Path]) -> list[str]:
    """A notice for each of `folders` that is not a folder (it is left out of searches: never fatal)."""
    return [f"Docs folder {each} is not a folder: search_docs leaves it out." for each in folders if not each.is_dir()]


def use(folders: Sequence[Path]) -> None:
    """Make `folders` (absolute) the docs folders `search_docs` searches beside the working directory."""
    _docs[0] = tuple(folders)


def docs_folders() -> list[Path]:
    """The docs folders `use` was last given."""
    return list(_docs[0])


def searched(first: Path, others: Iterable[Path]) -> list[Path]:
    """The folders one index covers: `first`, then `others` that exist, none inside another (the outer one is
    kept, in the place of the first of them), none twice. All resolved."""
    wanted = [first.resolve(), *(folder.resolve() for folder in others if folder.is_dir())]
    kept: list[Path] = []
    for folder in wanted:
        if any(folder.is_relative_to(outer) for outer in kept):
            continue
        inner = [index for index, earlier in enumerate(kept) if earlier.is_relative_to(folder)]
        if inner:
            kept[inner[0]] = folder
            kept = [earlier for index, earlier in enumerate(kept) if index not in inner[1:]]
        else:
            kept.append(folder)
    return kept
