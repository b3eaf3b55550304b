"""
L{hub.web.proxies}: the client of a request behind a trusted proxy (and
only a trusted one), and the ranges of C{--trusted-proxies} and
C{--health-from}.
"""

import ipaddress

from twisted.trial.unittest import SynchronousTestCase
from twisted.web.http_headers import Headers

from hub.web.proxies import (
    PRIVATE_RANGES, ClientResolver, Networks, forwardedElements,
    parseAddress)

PROXY = "10.0.0.5"


def headers(**values):
    """
    L{Headers} of C{values} (underscores for dashes; a list for a header
    sent several times).
    """
    found = Headers()
    for name, value in values.items():
        for one in value if isinstance(value, list) else [value]:
            found.addRawHeader(name.replace("_", "-").encode("ascii"),
                               one.encode("latin-1"))
    return found


class ParseTests(SynchronousTestCase):
    """
    Addresses as proxies write them.
    """

    def test_addresses(self):
        """
        IPv4 and IPv6, bare, quoted, in brackets, with a port; an
        IPv4-mapped IPv6 address is its IPv4 one; anything else is None.
        """
        for text, expected in [
                ("192.0.2.1", "192.0.2.1"), (" 192.0.2.1 ", "192.0.2.1"),
                ("192.0.2.1:8080", "192.0.2.1"), ('"192.0.2.1"', "192.0.2.1"),
                ("2001:db8::1", "2001:db8::1"),
                ("[2001:db8::1]:443", "2001:db8::1"),
                ('"[2001:db8::1]"', "2001:db8::1"),
                ("::ffff:192.0.2.9", "192.0.2.9")]:
            self.assertEqual(parseAddress(text),
                             ipaddress.ip_address(expected), text)
        for text in ("", "unknown", "_hidden", "example.com", "1.2.3",
                     "[::1", "999.1.1.1"):
            self.assertIsNone(parseAddress(text), text)

    def test_forwardedElements(self):
        """
        The C{for} and C{proto} of each element of C{Forwarded}, in order,
        case-insensitive names, quotes taken off.
        """
        self.assertEqual(forwardedElements(
            'for=192.0.2.60;proto=http;by=203.0.113.43, '
            'For="[2001:db8:cafe::17]:4711";PROTO=https, by=x'),
            [("192.0.2.60", "http"), ("[2001:db8:cafe::17]:4711", "https"),
             (None, None)])
        self.assertEqual(forwardedElements(""), [])


class NetworksTests(SynchronousTestCase):
    """
    L{Networks} of an option's value.
    """

    def test_option(self):
        """
        Comma-separated addresses and ranges; C{none} or nothing is none;
        a bad part is named in the error.
        """
        networks = Networks.fromOption(" 127.0.0.1, 10.0.0.0/8 ,::1 ")
        self.assertTrue(networks.contains("10.1.2.3"))
        self.assertTrue(networks.contains("127.0.0.1"))
        self.assertTrue(networks.contains("::1"))
        self.assertTrue(networks.contains("::ffff:10.9.9.9"))
        self.assertFalse(networks.contains("127.0.0.2"))
        self.assertFalse(networks.contains(None))
        self.assertFalse(networks.contains("garbage"))
        for empty in ("none", "", " , "):
            self.assertFalse(Networks.fromOption(empty))
        error = self.assertRaises(ValueError, Networks.fromOption,
                                  "10.0.0.0/8,10.0.0.300")
        self.assertIn("10.0.0.300", str(error))

    def test_private(self):
        """
        The default of C{--health-from}: loopback and the private ranges,
        not a public address.
        """
        private = Networks(PRIVATE_RANGES)
        for host in ("127.0.0.1", "127.9.9.9", "::1", "10.1.1.1",
                     "172.16.0.1", "172.31.255.255", "192.168.1.1",
                     "fd00::1"):
            self.assertTrue(private.contains(host), host)
        for host in ("8.8.8.8", "172.32.0.1", "192.0.2.1", "2001:db8::1"):
            self.assertFalse(private.contains(host), host)


class ResolverTests(SynchronousTestCase):
    """
    L{ClientResolver.client}: the right-most address that is not a
    trusted proxy, from a trusted peer only.
    """

    def setUp(self):
        self.resolver = ClientResolver(Networks.fromOption(
            "10.0.0.0/24,2001:db8:ffff::/48"))

    def client(self, peer=PROXY, **values):
        return self.resolver.client(peer, headers(**values))

    def test_untrustedPeerIgnored(self):
        """
        From a peer that is no trusted proxy, the headers change nothing:
        the peer is the client, its scheme the connection's.
        """
        client = self.client("198.51.100.7", x_forwarded_for="192.0.2.1",
                             x_forwarded_proto="https",
                             forwarded="for=192.0.2.2;proto=https")
        self.assertEqual((client.host, client.secure),
                         ("198.51.100.7", None))
        self.assertEqual(ClientResolver().client(
            "10.0.0.5", headers(x_forwarded_for="192.0.2.1")).host,
            "10.0.0.5")

    def test_rightMostUntrusted(self):
        """
        The client is the right-most address of X-Forwarded-For that is
        not a trusted proxy: what a client wrote itself, on the left, is
        never believed.
        """
        self.assertEqual(self.client(
            x_forwarded_for="1.1.1.1, 192.0.2.1").host, "192.0.2.1")
        self.assertEqual(self.client(
            x_forwarded_for="1.1.1.1, 192.0.2.1, 10.0.0.7").host,
            "192.0.2.1")
        self.assertEqual(self.client(
            x_forwarded_for=["1.1.1.1", "192.0.2.1"]).host, "192.0.2.1")
        self.assertEqual(self.client(
            x_forwarded_for="[2001:db8::5]:1234").host, "2001:db8::5")

    def test_allTrusted(self):
        """
        When every hop is a trusted proxy, the client is the left-most.
        """
        self.assertEqual(self.client(
            x_forwarded_for="10.0.0.8, 10.0.0.7").host, "10.0.0.8")

    def test_unreadableHop(self):
        """
        An unreadable hop stops the walk: the client is the last address
        a trusted proxy gave (the peer, if that was the last one).
        """
        self.assertEqual(self.client(
            x_forwarded_for="192.0.2.1, unknown").host, PROXY)
        self.assertEqual(self.client(
            x_forwarded_for="192.0.2.1, garbage, 10.0.0.9").host,
            "10.0.0.9")

    def test_noHeader(self):
        """
        A trusted peer that names no client is the client.
        """
        self.assertEqual(self.client().host, PROXY)

    def test_forwarded(self):
        """
        Without X-Forwarded-For, the C{for=} of Forwarded, right-most not
        trusted first; its C{proto=} says whether it is secure.
        """
        client = self.client(forwarded='for=1.1.1.1;proto=http, '
                             'for="[2001:db8::9]:99";proto=https, '
                             'for=10.0.0.3;proto=http')
        self.assertEqual((client.host, client.secure), ("2001:db8::9", True))

    def test_forwardedForFirst(self):
        """
        X-Forwarded-For comes before Forwarded (the proxies of
        docs/deploy.md set it, and pass a client's own Forwarded on).
        """
        self.assertEqual(self.client(
            x_forwarded_for="192.0.2.1",
            forwarded="for=192.0.2.99").host, "192.0.2.1")

    def test_proto(self):
        """
        X-Forwarded-Proto's last value says whether the client used
        HTTPS; without it, nothing is said.
        """
        self.assertTrue(self.client(x_forwarded_for="192.0.2.1",
                                    x_forwarded_proto="HTTPS").secure)
        self.assertFalse(self.client(x_forwarded_for="192.0.2.1",
                                     x_forwarded_proto="https, http").secure)
        self.assertIsNone(self.client(x_forwarded_for="192.0.2.1").secure)
