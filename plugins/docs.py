"""Docs plugin: `search_docs` finds passages in the working directory's files, and the run's docs folders
(`[retrieval] folders`, `--docs DIR`), and cites them as path:line-line.

The index lives in its own SQLite file next to the history (tui_agent.retrieval) and is brought up to date
incrementally before each search, so an edited file is found as it is now. With `[retrieval] embedding_model`
set, passages get vectors from the run's endpoint and the ranking is hybrid (BM25 fused with cosine).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tui_agent.paths import retrieval_index_path
from tui_agent.retrieval import embedding_choice, scope
from tui_agent.tools import tool

if TYPE_CHECKING:
    from tui_agent.retrieval.index import Report

MAX_PASSAGE_CHARS = 1500
"""A passage is cut here in the result: the citation lets the reader open the rest."""


@tool(approval="never", effect="read")
def search_docs(query: str, k: int = 6) -> str:
    """Search the working directory and docs folders for passages about `query`, each with a path:line-line citation.

    Args:
        query: What to look for, in plain words.
        k: How many passages to return (1-20).
    """
    from tui_agent.retrieval.index import PassageIndex  # deferred: ~30 ms to import, paid by every run otherwise

    folders = [Path.cwd(), *scope.docs_folders()]
    index = PassageIndex(retrieval_index_path(), folders, embedding_choice.current())
    try:
        report = index.refresh()
        hits = index.search(query, max(1, min(k, 20)))
    finally:
        index.close()
    notes = _notes(report, index.embedding_problem)
    if not hits:
        return "No passage matches. " + notes if notes else "No passage matches."
    blocks = [f"[{hit.citation}]\n{hit.text[:MAX_PASSAGE_CHARS]}" for hit in hits]
    return "\n\n".join(blocks) + (f"\n\n({notes})" if notes else "")


def _notes(report: Report, problem: str | None) -> str:
    parts = [f"ranked by BM25 alone: {problem}"] if problem else []
    if report.embedding_problem and not problem:
        parts.append(f"some passages have no vector yet: {report.embedding_problem}")
    if report.skipped_binary:
        parts.append(f"{report.skipped_binary} binary files skipped")
    if report.skipped_huge:
        parts.append(f"{report.skipped_huge} huge files skipped")
    if report.unreadable:
        parts.append(f"{len(report.unreadable)} files unreadable")
    return ", ".join(parts)
