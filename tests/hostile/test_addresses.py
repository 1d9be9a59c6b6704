"""Whom the caps per address count (``bot.edges.miniapp.net.client_address``): the peer, or
behind a reverse proxy on this host or a private network, the client the proxy names;
an address on the internet cannot name another, and an IPv6 host is its /64."""

from unittest import mock

import pytest
from aiohttp.test_utils import make_mocked_request

from bot.edges.miniapp.net import client_address


@pytest.mark.parametrize(
    ("peer", "forwarded", "counted"),
    [
        ("93.184.216.34", None, "93.184.216.34"),
        ("93.184.216.34", "203.0.113.9", "93.184.216.34"),  # not a proxy: not believed
        ("127.0.0.1", "203.0.113.9", "203.0.113.9"),  # the proxy on this host
        ("172.18.0.5", "10.0.0.1, 203.0.113.9", "203.0.113.9"),  # compose's: the last
        ("127.0.0.1", "not an address", "127.0.0.1"),
        ("2001:db8:1:2:aaaa::1", None, "2001:db8:1:2::/64"),
        ("::ffff:198.51.100.7", None, "198.51.100.7"),  # a dual-stack socket's IPv4 peer
        ("::1", "2001:db8:1:2:bbbb::1", "2001:db8:1:2::/64"),
    ],
)
def test_the_address_a_request_is_counted_under(peer, forwarded, counted):
    transport = mock.Mock()
    transport.get_extra_info.side_effect = lambda name, default=None: (
        (peer, 443) if name == "peername" else default
    )
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    request = make_mocked_request("GET", "/api/events", headers=headers, transport=transport)
    assert client_address(request) == counted
