"""Provides `readable`: a fetched page as text the model can read — HTML as Markdown, text as it is.

HTML goes through BeautifulSoup (the standard library's parser: no compiled dependency) and markdownify: what
only a browser uses (scripts, styles, forms, embedded frames) and the page's furniture (navigation, header,
footer, asides) are dropped, the `<main>` or `<article>` kept when the page has one, links made absolute.
Text, JSON and XML are decoded and returned as they are; anything else (images, archives...) is refused with
its type and size.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urljoin

from bs4 import BeautifulSoup
from bs4.element import Tag
from markdownify import MarkdownConverter

from tui_agent.tools.web.fetch import FetchError, Page

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"application/json", "application/xml", "application/javascript", "application/x-yaml"})
DROPPED = ("script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas", "form", "button")
FURNITURE = ("nav", "header", "footer", "aside")
BLANK_RUNS = re.compile(r"\n{3,}")


def readable(page: Page) -> tuple[str, str]:
    """The page's title (or its address) and its content as Markdown or text; raises `FetchError` for a type
    that is not text."""
    media = page.media_type
    if media in HTML_TYPES:
        return html_to_markdown(page.body, page.url, page.charset)
    if media.startswith("text/") or media in TEXT_TYPES or media.endswith(("+json", "+xml")):
        text = page.body.decode(page.charset or "utf-8", errors="replace")
        return page.url, _pretty_json(text) if "json" in media else text
    raise FetchError(f"{page.url} is {media} ({len(page.body):,} bytes), not text; web_fetch reads only text pages")


def html_to_markdown(html: bytes, url: str, charset: str | None = None) -> tuple[str, str]:
    """The title and the readable part of an HTML page as Markdown, links absolute against `url`."""
    soup = BeautifulSoup(html, "html.parser", from_encoding=charset)
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for name in DROPPED:
        for element in soup.find_all(name):
            element.decompose()
    body = soup.find("main") or soup.find("article") or soup.body or soup
    if isinstance(body, Tag):
        for name in FURNITURE:
            for element in body.find_all(name):
                element.decompose()
        _absolute_links(body, url)
    converter = MarkdownConverter(heading_style="ATX", bullets="-")
    markdown = converter.convert_soup(body) if isinstance(body, Tag) else ""
    return title or url, BLANK_RUNS.sub("\n\n", markdown).strip()


def _absolute_links(root: Tag, url: str) -> None:
    for link in root.find_all("a", href=True):
        href = link.get("href")
        if isinstance(href, str):
            link["href"] = urljoin(url, href)
    for image in root.find_all("img", src=True):
        src = image.get("src")
        if isinstance(src, str):
            image["src"] = urljoin(url, src)


def _pretty_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, indent=2)
    except ValueError:
        return text
