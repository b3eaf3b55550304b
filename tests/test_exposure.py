"""
The first lines a hub logs: what it exposes, where, and how to restrict
it.
"""

from twisted.internet.address import IPv4Address, IPv6Address
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.exposure import exposureLines, reach
from tests.endtoend import GamehubServer


def tcp(host, port):
    return IPv4Address("TCP", host, port)


class LinesTests(SynchronousTestCase):
    """
    L{exposureLines} says each listener's address, who reaches it, and
    how to restrict what is open.
    """

    def test_defaults(self):
        """
        The defaults: every game and the web face on every interface, the
        web face without authentication, announced on the LAN; then the
        way to restrict them.
        """
        lines = exposureLines(
            [("gomoku-port", tcp("0.0.0.0", 11011)),
             ("checkers-port", tcp("0.0.0.0", 16666)),
             ("splendor-port", tcp("0.0.0.0", 13204)),
             ("web-port", tcp("0.0.0.0", 8080))], announce=True)
        self.assertEqual(lines, [
            "gomoku on 0.0.0.0:11011 (every interface)",
            "Chinese checkers on 0.0.0.0:16666 (every interface)",
            "Splendor on 0.0.0.0:13204 (every interface)",
            "the web face on 0.0.0.0:8080 (every interface), without "
            "authentication (lobby, spectating, replays, leaderboards, JSON "
            "API, /metrics)",
            "this hub is announced on the LAN with DNS-SD as _gamehub._tcp "
            "(--announce no turns it off)",
            "to listen on loopback (or one interface) only: --gomoku-port "
            "tcp:11011:interface=127.0.0.1 (the same for --checkers-port, "
            "--splendor-port, --web-port); 'none' turns a listener off"])

    def test_restricted(self):
        """
        Loopback listeners and no announcement: no advice to restrict.
        """
        lines = exposureLines(
            [("gomoku-port", tcp("127.0.0.1", 11011)),
             ("metrics-port", IPv6Address("TCP", "::1", 9464))],
            announce=False)
        self.assertEqual(lines, [
            "gomoku on 127.0.0.1:11011 (loopback only)",
            "Prometheus metrics on [::1]:9464 (loopback only), without "
            "authentication"])

    def test_reach(self):
        self.assertEqual(reach("::"), "every interface")
        self.assertEqual(reach("127.0.0.2"), "loopback only")
        self.assertEqual(reach("10.0.0.1"), "this interface only")


class StartTests(TestCase):
    """
    C{twistd -n gamehub} logs those lines as it starts.
    """

    def test_logged(self):
        """
        Each listener's line, with the port it really got, comes before
        anything else of the hub's own (the records' line).
        """
        server = GamehubServer(self, "--db", "none", "--announce", "no",
                               games=("gomoku", "web"))
        pattern = (r"exposed: the web face on 127\.0\.0\.1:{} \(loopback "
                   r"only\), without authentication".format(
                       server.port("web")))
        server.waitForLog(pattern)
        log = "".join(server.output)
        self.assertIn("exposed: gomoku on 127.0.0.1:{} (loopback only)"
                      .format(server.port("gomoku")), log)
        self.assertNotIn("to listen on loopback", log)
        self.assertNotIn("announced on the LAN", log)

    def test_lineNumbers(self):
        """
        With the three games and the web face (as the default options
        have them), the exposure lines start at the log's 11th line, after
        twistd's two and two for each listener, as the README says (lines
        11-16 with the defaults' six lines: L{LinesTests.test_defaults}).
        """
        server = GamehubServer(self, "--db", "none", "--announce", "no",
                               games=("gomoku", "checkers", "splendor",
                                      "web"))
        server.waitForLog(r"exposed: the web face")
        lines = "".join(server.output).splitlines()
        first = [i for i, line in enumerate(lines) if " exposed: " in line]
        self.assertEqual(first[0] + 1, 11, "\n".join(lines[:12]))
