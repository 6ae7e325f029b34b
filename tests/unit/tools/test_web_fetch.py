"""The shipped `web_fetch` tool against a real HTTP server on 127.0.0.1 serving real-world-shaped pages: HTML as
readable Markdown, redirects within limits, caps, refusals, and the SSRF guard (checked after resolution and
on every redirect)."""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tui_agent.agent.tool_set import ToolSet
from tui_agent.config import Settings, ToolsSettings, WebSettings
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner
from tui_agent.tools.web.addresses import kind_of, refusal
from tui_agent.tools.web.fetch import FetchError, Limits, fetch
from tui_agent.tools.web.readable import readable
from tui_agent.tools.web.source import web_fetch_spec

ARTICLE = """<!doctype html>
<html><head><title>Release notes — Example</title>
<style>body { color: red }</style><script>window.tracking = "SCRIPT-TEXT";</script></head>
<body>
<header><a href="/">Home</a> <a href="/login">Log in</a> HEADER-TEXT</header>
<nav><ul><li><a href="/docs">Docs</a></li><li>NAV-TEXT</li></ul></nav>
<main>
  <h1>Version 2.0</h1>
  <p>The <strong>new</strong> parser is <a href="/docs/parser.html">documented here</a>.</p>
  <h2>Changes</h2>
  <ul><li>Faster start-up</li><li>Fewer allocations</li></ul>
  <pre><code>pip install example==2.0</code></pre>
  <form><input name="q"><button>Search FORM-TEXT</button></form>
  <aside>ASIDE-TEXT</aside>
</main>
<footer>FOOTER-TEXT © Example</footer>
</body></html>
"""


class Pages(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        routes = {
            "/article": lambda: self.answer(200, "text/html; charset=utf-8", ARTICLE.encode()),
            "/redirect": lambda: self.redirect("/article"),
            "/loop": lambda: self.redirect("/loop"),
            "/to-metadata": lambda: self.redirect("http://169.254.169.254/latest/meta-data/"),
            "/to-file": lambda: self.redirect("file:///etc/passwd"),
            "/big": lambda: self.answer(200, "text/plain", b"x" * 300_000),
            "/image.png": lambda: self.answer(200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 100),
            "/data.json": lambda: self.answer(200, "application/json", b'{"name":"example","tags":["a","b"]}'),
            "/latin1": lambda: self.answer(200, "text/html; charset=iso-8859-1", "<p>café</p>".encode("latin-1")),
            "/missing": lambda: self.answer(404, "text/html", b"<h1>Not found</h1><p>No such page.</p>"),
            "/slow": self.slow,
        }
        routes.get(self.path, lambda: self.answer(404, "text/plain", b"no route"))()

    def answer(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def slow(self) -> None:
        time.sleep(3)
        self.answer(200, "text/plain", b"late")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class names it so
        return None


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


LOCAL = ("127.0.0.1",)


async def test_an_html_page_becomes_readable_markdown_without_the_pages_furniture(site: str) -> None:
    page = await fetch(f"{site}/article", Limits(), LOCAL)
    title, text = readable(page)
    assert title == "Release notes — Example"
    assert text.startswith("# Version 2.0")
    assert "The **new** parser is [documented here](" + site + "/docs/parser.html)." in text
    assert "## Changes" in text and "- Faster start-up" in text and "pip install example==2.0" in text
    for furniture in ("SCRIPT-TEXT", "HEADER-TEXT", "NAV-TEXT", "FOOTER-TEXT", "FORM-TEXT", "ASIDE-TEXT", "color"):
        assert furniture not in text


async def test_redirects_are_followed_within_limits(site: str) -> None:
    page = await fetch(f"{site}/redirect", Limits(), LOCAL)
    assert (page.url, page.redirects, page.status) == (f"{site}/article", (f"{site}/redirect",), 200)
    with pytest.raises(FetchError, match="redirected more than 3 times"):
        await fetch(f"{site}/loop", Limits(max_redirects=3), LOCAL)


async def test_private_addresses_are_refused_unless_allowed_and_checked_on_every_redirect(site: str) -> None:
    with pytest.raises(FetchError, match=r"loopback address \(127\.0\.0\.1\).*allow_private"):
        await fetch(f"{site}/article", Limits())
    port = site.rsplit(":", 1)[1]
    with pytest.raises(FetchError, match="is at a loopback address"):  # a name is checked once resolved
        await fetch(f"http://localhost:{port}/article", Limits())
    assert (await fetch(f"http://localhost:{port}/article", Limits(), ("localhost",))).status == 200
    with pytest.raises(FetchError, match=r"169\.254\.169\.254 is at a link-local address"):
        await fetch(f"{site}/to-metadata", Limits(timeout=5), LOCAL)  # the redirect's hop is refused


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "not an http or https address"),
        ("ftp://example.com/x", "not an http or https address"),
        ("http://user:secret@example.com/", "does not send credentials"),
        ("https:///nohost", "has no host"),
    ],
)
async def test_only_plain_http_addresses_are_fetched(url: str, reason: str) -> None:
    with pytest.raises(FetchError, match=reason):
        await fetch(url, Limits())


async def test_a_redirect_to_another_scheme_is_refused(site: str) -> None:
    with pytest.raises(FetchError, match="not an http or https address"):
        await fetch(f"{site}/to-file", Limits(), LOCAL)


async def test_size_and_time_are_capped(site: str) -> None:
    page = await fetch(f"{site}/big", Limits(max_bytes=100_000), LOCAL)
    assert (len(page.body), page.cut) == (100_000, True)
    with pytest.raises(FetchError, match=r"did not answer within 0.5 s"):
        await fetch(f"{site}/slow", Limits(timeout=0.5), LOCAL)


async def test_text_json_and_charsets_are_read_and_other_types_refused(site: str) -> None:
    _, data = readable(await fetch(f"{site}/data.json", Limits(), LOCAL))
    assert json.loads(data) == {"name": "example", "tags": ["a", "b"]} and "\n  " in data
    assert readable(await fetch(f"{site}/latin1", Limits(), LOCAL))[1] == "café"
    with pytest.raises(FetchError, match=r"image/png \(108 bytes\), not text"):
        readable(await fetch(f"{site}/image.png", Limits(), LOCAL))


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.10", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "private"),
        ("224.0.0.1", "multicast"),
        ("100.64.0.1", "non-public"),  # carrier-grade NAT: not global
        ("93.184.215.14", None),
        ("2606:4700::6810:85e5", None),
    ],
)
def test_what_counts_as_public(address: str, kind: str | None) -> None:
    assert kind_of(ipaddress.ip_address(address)) == kind


def test_private_ranges_and_hosts_can_be_allowed() -> None:
    address = ipaddress.ip_address("10.0.3.4")
    assert refusal("wiki.corp", address, ()) is not None
    assert refusal("wiki.corp", address, ("10.0.0.0/8",)) is None
    assert refusal("wiki.corp", address, ("*.corp",)) is None
    assert refusal("wiki.corp", address, ("10.0.3.5", "other.corp")) is not None


def runner_for(settings: ToolsSettings, web: WebSettings) -> ToolRunner:
    registry = ToolRegistry(settings)
    registry.add(web_fetch_spec(web))
    return ToolRunner(registry)


async def test_the_tool_asks_and_always_or_a_pattern_covers_the_host(site: str) -> None:
    web = WebSettings(allow_private=["127.0.0.1"])
    asked: list[ToolCall] = []

    async def always(call: ToolCall) -> Decision:
        asked.append(call)
        return Decision.ALLOW_ALWAYS

    runner = runner_for(ToolsSettings(), web)
    first, again = (
        ToolCall("1", "web_fetch", arguments={"url": f"{site}/article"}),
        ToolCall("2", "web_fetch", arguments={"url": f"{site}/data.json"}),
    )
    [done] = await runner.run([first], lambda call: None, always)
    [unasked] = await runner.run([again], lambda call: None, always)
    assert [call.command for call in asked] == ["127.0.0.1"]  # asked once, about the host
    assert done.status == unasked.status == ToolStatus.DONE
    assert done.outcome.startswith(f"# Release notes — Example\nSource: {site}/article\n\n# Version 2.0")
    [denied] = await runner_for(ToolsSettings(), web).run([first], lambda call: None)
    assert denied.status == ToolStatus.DENIED  # nobody to ask
    patterned = runner_for(ToolsSettings.model_validate({"web_fetch": {"allow": ["127.0.0.*"]}}), web)
    [allowed] = await patterned.run([first], lambda call: None)
    assert allowed.status == ToolStatus.DONE
    [missing] = await patterned.run(
        [ToolCall("3", "web_fetch", arguments={"url": f"{site}/missing"})], lambda call: None
    )
    assert "HTTP status: 404" in missing.outcome and "No such page." in missing.outcome
    [refused] = await runner_for(ToolsSettings(), WebSettings()).run([first], lambda call: None, always)
    assert refused.error == "web_fetch failed: 127.0.0.1 is at a loopback address (127.0.0.1); " + (
        'web_fetch reaches only public addresses (allow it with `[web] allow_private = ["127.0.0.1"]`)'
    )


async def test_the_web_source_offers_the_tool_unless_turned_off() -> None:
    on = await ToolSet.start(Settings(), str, only=["web"])
    spec = on.registry.get("web_fetch")
    assert spec is not None and (spec.approval, spec.effect) == ("ask", "read")
    off = await ToolSet.start(Settings(web=WebSettings(enabled=False)), str, only=["web"])
    assert off.registry.get("web_fetch") is None
    named = Settings(tools=ToolsSettings(disabled_plugins=["web"]))
    assert (await ToolSet.start(named, str, only=["web"])).registry.get("web_fetch") is None
