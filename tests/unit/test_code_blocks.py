"""The code blocks of a reply (what `tab` selects and `y` copies) and the rows that draw each one, found in the
lines Rich renders (the renderer the chat log draws replies with), and the sentence a copy ends in."""

from __future__ import annotations

from rich.console import Console
from rich.markdown import Markdown

from tui_agent.ui.clipboard import copied
from tui_agent.ui.code_blocks import code_blocks, code_rows

REPLY = """Two ways:

```python
print("one")
print("two")
```

- in a list:

  ```sh
  echo three
  ```

~~~
print("one")
~~~

Not code: ``` inline ```.
"""


def rendered(markdown: str, width: int = 40) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    with console.capture() as capture:
        console.print(Markdown(markdown))
    return capture.get().split("\n")


def test_every_fenced_block_in_order_with_its_language() -> None:
    blocks = code_blocks(REPLY)
    assert [(b.language, b.code) for b in blocks] == [
        ("python", 'print("one")\nprint("two")\n'),
        ("sh", "echo three\n"),
        ("", 'print("one")\n'),
    ]
    assert code_blocks("no code here") == []


def test_rows_are_found_in_order_even_for_a_repeated_line() -> None:
    lines = rendered(REPLY)
    blocks = code_blocks(REPLY)
    first = code_rows(lines, blocks[0])
    assert first is not None
    assert 'print("one")' in lines[first[0] + 1] and 'print("two")' in lines[first[1] - 2]
    second = code_rows(lines, blocks[1], first[1])
    third = code_rows(lines, blocks[2], second[1] if second else 0)
    assert second is not None and third is not None and third[0] > first[1]
    assert 'print("one")' in lines[third[0] + 1]


def test_a_block_with_a_line_wrapped_over_several_rows_is_found_whole() -> None:
    markdown = "```\n" + "x = compute_something_long(alpha, beta, gamma, delta, epsilon)\n" + "```\n"
    lines = rendered(markdown, width=30)
    rows = code_rows(lines, code_blocks(markdown)[0])
    assert rows is not None and lines[rows[0] + 1].strip() == "x =" and "epsilon)" in lines[rows[1] - 2]


def test_copied_says_how_many_lines() -> None:
    assert copied("a\nb\nc\n") == "copied 3 lines"
    assert copied("one line", "code block 1") == "copied code block 1, 1 line"
