"""The shipped `web_fetch` tool: a web page as readable Markdown, fetched only from public addresses.

`addresses` says which addresses a fetch may reach, `guarded` connects only to those (checked after DNS
resolution, for every connection a redirect makes), `fetch` follows redirects within limits and caps size and
time, `readable` turns HTML into Markdown, and `source` offers the tool (`[web]` settings, approval `ask`,
`[tools.web_fetch] allow` patterns over the host).
"""
