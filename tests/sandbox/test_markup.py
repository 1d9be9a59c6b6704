from bot.fake_telegram import parse_html
from bot.sandbox.markup import to_html


def rendered(source: str) -> str:
    """What the page shows for a text the bot sent with parse_mode=HTML."""
    text, entities = parse_html(source)
    return to_html(text, entities)


def test_the_bots_formatting_comes_back_as_the_same_tags():
    assert rendered("<b>Hand 1</b> · <i>level</i> <code>2</code>") == (
        "<b>Hand 1</b> · <i>level</i> <code>2</code>"
    )


def test_nested_entities_nest_and_offsets_count_utf16_units():
    # 🀄 and 🃏 are two UTF-16 units each: offsets after them must still land right
    assert rendered("🀄 <b>a <i>🃏b</i></b> c") == "🀄 <b>a <i>🃏b</i></b> c"


def test_everything_in_the_text_is_escaped():
    text = '<script>alert(1)</script> & "x"'
    assert to_html(text, []) == "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"
    assert rendered("<b>&lt;img src=x onerror=1&gt;</b>") == ("<b>&lt;img src=x onerror=1&gt;</b>")


def test_links_keep_only_web_addresses():
    assert rendered('<a href="https://t.me/Bot?start=g1">join</a>') == (
        '<a class="link" href="https://t.me/Bot?start=g1">join</a>'
    )
    entity = {"type": "text_link", "offset": 0, "length": 2, "url": "javascript:alert(1)"}
    assert to_html("hi", [entity]) == '<a class="link">hi</a>'


def test_overlapping_entities_are_closed_and_reopened_properly():
    entities = [
        {"type": "bold", "offset": 0, "length": 4},
        {"type": "italic", "offset": 2, "length": 4},
    ]
    assert to_html("abcdef", entities) == "<b>ab<i>cd</i></b><i>ef</i>"


def test_commands_and_deep_links_in_plain_text_are_tappable_but_not_in_code():
    assert rendered("send /newgame or /rules@Bot") == (
        'send <a class="cmd" data-cmd="/newgame">/newgame</a> or '
        '<a class="cmd" data-cmd="/rules@Bot">/rules@Bot</a>'
    )
    assert rendered("<code>/newgame</code> and a/b") == "<code>/newgame</code> and a/b"
    assert rendered("open https://t.me/Bot?start=j1_0") == (
        'open <a class="link" href="https://t.me/Bot?start=j1_0">https://t.me/Bot?start=j1_0</a>'
    )


def test_a_date_time_entity_is_drawn_for_the_browser_to_show_in_its_own_time_zone():
    """Issue 36: the DM's deadlines are the Bot API's date_time entities; the sandbox draws
    one as a <time> the page fills in the browser's zone, its UTC text kept for no script."""
    text, entities = parse_html(
        'until <tg-time unix="1700000000" format="T">22:13:20 UTC</tg-time>'
    )
    assert text == "until 22:13:20 UTC"
    assert to_html(text, entities) == (
        'until <time class="dt" data-unix="1700000000" data-format="T">22:13:20 UTC</time>'
    )
