"""Provides `fuse`: reciprocal rank fusion, the hybrid rank of BM25's and the vectors' orders.

RRF (Cormack et al., 2009) adds 1 / (K + rank) over the rankings an item appears in. It needs no scale shared
by BM25 scores and cosines (they have none), and an item both rankings put high beats one either puts first.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = 60
"""The constant of the original paper, used by most hybrid search engines (Elasticsearch, Weaviate)."""

Item = TypeVar("Item", bound=Hashable)


def fuse(rankings: Sequence[Sequence[Item]], k: int) -> list[tuple[Item, float]]:
    """The `k` items ranking best over `rankings` (each best first), with their fused scores, best first."""
    scores: dict[Item, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (K + rank)
    return sorted(scores.items(), key=lambda pair: pair[1], reverse=True)[:k]
