"""A content's name is the SHA-256 of its bytes however it is reached: hashed now, started early on the worker
thread (`name_soon`, as an edit's write does), or remembered and found again by equal bytes in another object,
from several threads at once; never another content's name."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor

from tui_agent.content_names import REMEMBERED, REMEMBERED_BYTES, content_name, name_soon


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_every_way_to_a_name_gives_the_contents_own() -> None:
    base = bytes(range(256)) * 400  # ~100 KB
    contents = [base[:i] + b"x" + base[i + 1 :] for i in range(0, 2 * REMEMBERED * 97, 97)]  # same length each
    name_soon(*contents[:REMEMBERED], None)
    copies = [bytes(bytearray(c)) for c in contents]  # equal bytes, other objects (as a plan reads a file)
    assert [content_name(c) for c in copies] == [sha(c) for c in contents]
    with ThreadPoolExecutor(4) as pool:  # remembered, evicted and new ones, from several threads
        assert list(pool.map(content_name, copies * 3)) == [sha(c) for c in contents * 3]
    huge = b"y" * (REMEMBERED_BYTES // 2 + 1)  # too big to remember: still named right
    name_soon(huge)
    assert content_name(huge) == sha(huge) and content_name(b"") == sha(b"")
