"""`TextRuns`: a reply's text kept in runs as its deltas arrive, the whole exactly what was sent."""

from __future__ import annotations

from tui_agent.agent.text_runs import RUN, TextRuns


def test_the_text_is_every_piece_in_order_across_runs() -> None:
    pieces = [f"{n}," for n in range(3 * RUN + 7)]
    runs = TextRuns("so far: ")
    for piece in pieces:
        runs.append(piece)
    assert runs.text == "so far: " + "".join(pieces)
    assert len(runs._runs) == 4  # the text before, then three runs: the last pieces wait for theirs


def test_empty_until_a_piece_arrives() -> None:
    runs = TextRuns()
    assert not runs and runs.text == ""
    runs.append("")
    assert runs  # an empty piece is a piece (as a list of them was)
    runs.append("x")
    assert runs.text == "x"
