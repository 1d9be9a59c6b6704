import pytest

from bot.fake_telegram import ApiError, parse_html


def test_tags_become_entities_with_utf16_offsets() -> None:
    text, entities = parse_html("🂡 <b>bold <i>both</i></b> <u>u</u>")
    assert text == "🂡 bold both u"
    # The playing card is outside the BMP: two UTF-16 units.
    assert entities == [
        {"type": "bold", "offset": 3, "length": 9},
        {"type": "italic", "offset": 8, "length": 4},
        {"type": "underline", "offset": 13, "length": 1},
    ]


@pytest.mark.parametrize(
    ("tag", "kind"),
    [
        ("b", "bold"), ("strong", "bold"), ("i", "italic"), ("em", "italic"),
        ("u", "underline"), ("ins", "underline"), ("s", "strikethrough"),
        ("strike", "strikethrough"), ("del", "strikethrough"), ("code", "code"),
        ("pre", "pre"), ("tg-spoiler", "spoiler"), ("blockquote", "blockquote"),
    ],
)  # fmt: skip
def test_every_supported_tag(tag: str, kind: str) -> None:
    assert parse_html(f"<{tag}>x</{tag}>") == ("x", [{"type": kind, "offset": 0, "length": 1}])


def test_links_spoiler_span_pre_language_and_expandable_quote() -> None:
    text, entities = parse_html(
        '<a href="https://e.x/?a=1&amp;b=2">l</a><span class="tg-spoiler">s</span>'
        '<pre><code class="language-python">p</code></pre><blockquote expandable>q</blockquote>'
    )
    assert text == "lspq"
    assert entities == [
        {"type": "text_link", "url": "https://e.x/?a=1&b=2", "offset": 0, "length": 1},
        {"type": "spoiler", "offset": 1, "length": 1},
        {"type": "pre", "language": "python", "offset": 2, "length": 1},
        {"type": "expandable_blockquote", "offset": 3, "length": 1},
    ]


def test_html_entities_are_decoded() -> None:
    assert parse_html("&lt;a&gt; &amp; &quot; &#65;&#x42; & alone") == ('<a> & " AB & alone', [])


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("<b>x", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
        ("1 < 2", "Unclosed start tag at byte offset 2"),
        ("<foo>x</foo>", 'Unsupported start tag "foo" at byte offset 0'),
        ("é<br>", 'Unsupported start tag "br" at byte offset 2'),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ("<b>x</b", "Unclosed end tag at byte offset 4"),
    ],
)
def test_malformed_html_is_rejected_like_telegram(source: str, reason: str) -> None:
    with pytest.raises(ApiError) as caught:
        parse_html(source)
    assert caught.value.code == 400
    assert caught.value.description == f"Bad Request: can't parse entities: {reason}"


def test_tg_time_is_a_date_time_entity_and_a_bad_one_is_refused():
    """<tg-time> (Bot API 9.5) as Telegram parses it: a date_time entity with its Unix time
    and format; a missing time or an unknown format is refused like Telegram refuses it."""
    text, entities = parse_html('<tg-time unix="1700000000" format="wDT">Tue</tg-time>!')
    assert text == "Tue!"
    assert entities == [
        {
            "type": "date_time",
            "unix_time": 1700000000,
            "date_time_format": "wDT",
            "offset": 0,
            "length": 3,
        }
    ]
    for bad in ('<tg-time format="T">x</tg-time>', '<tg-time unix="1" format="Tx">x</tg-time>'):
        with pytest.raises(ApiError):
            parse_html(bad)
