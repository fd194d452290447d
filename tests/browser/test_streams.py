"""A page refused a live stream (503: every stream of the table is taken) reads the table meanwhile."""

from __future__ import annotations

from playwright.sync_api import expect

from conftest import PHONE


def test_a_page_past_the_stream_cap_polls_the_table_and_stays_current(make_server, browser, phones):
    server = make_server(config={"SSE_MAX_STREAMS": 1})
    first = phones(server.url)                                 # holds the table's only live stream
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    try:
        refused = []
        page = ctx.new_page()
        page.on("response", lambda r: refused.append(r.status) if "/api/events" in r.url else None)
        page.goto(server.url + "/")
        expect(page.locator("#conn")).to_have_text("polling", timeout=20000)
        assert 503 in refused
        server.table.submit({"type": "peg", "side": "p2", "points": 3})
        expect(page.locator("[data-score='p2']")).to_have_text("3", timeout=20000)      # read, not pushed
        expect(first.locator("[data-score='p2']")).to_have_text("3")
        # the stream frees: the page gets it back at its next try and is live again
        first.context.close()
        expect(page.locator("#conn")).to_have_text("live", timeout=40000)
        server.table.submit({"type": "peg", "side": "p1", "points": 2})
        expect(page.locator("[data-score='p1']")).to_have_text("2")
    finally:
        ctx.close()
