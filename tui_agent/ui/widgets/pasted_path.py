"""Provides `image_path_in`: the image file a paste names, if it is one (a screenshot dragged into the terminal).

Terminals paste a dropped file as its path: plain, quoted ('…' or "…"), with backslash-escaped spaces, or as a
`file://` URL. Only a single line naming an existing file that starts like a PNG, JPEG, GIF or WebP counts.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tui_agent.agent.records import image_mime

LONGEST_PATH = 4096


def image_path_in(text: str) -> Path | None:
    """The image file `text` is the path of, or None."""
    candidate = text.strip()
    if not candidate or "\n" in candidate or len(candidate) > LONGEST_PATH:
        return None
    if len(candidate) > 1 and candidate[0] == candidate[-1] and candidate[0] in "'\"":
        candidate = candidate[1:-1]
    elif candidate.startswith("file://"):
        candidate = unquote(urlsplit(candidate).path)
    else:
        candidate = re.sub(r"\\(.)", r"\1", candidate)

    path = Path(candidate).expanduser()
    try:
        if not path.is_file():
            return None
        with path.open("rb") as file:
            head = file.read(16)
    except (OSError, ValueError):
        return None
    return path if image_mime(head) is not None else None
