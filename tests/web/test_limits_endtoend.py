"""
The web port's limits against the real C{twistd -n gamehub} run under a
low C{ulimit -n}: event streams past the caps, and the game ports still
take players.
"""

import os
import socket

from twisted.trial.unittest import SynchronousTestCase

from hub.limits import DESCRIPTOR_OVERHEAD
from hub.wire import checkers as checkersWire
from hub.wire import gomoku as gomokuWire
from tests.checkers.test_endtoend import CheckersClient
from tests.endtoend import TIMEOUT, GamehubServer, GomokuClient

#: The server's C{ulimit -n}.
MAX_OPEN_FILES = 256
#: The defaults of C{--web-fd-reserve} and C{--web-max-streams-per-ip}.
RESERVE = 128
STREAMS_PER_IP = 32

STREAMING, TOO_MANY, REFUSED = "streaming", "429", "refused"


def openStream(port, source):
    """
    A socket from address C{source} that asked C{port} for the lobby's
    event stream (HTTP/1.0: an answer other than a stream ends with the
    connection).
    """
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT,
                                    source_address=(source, 0))
    sock.sendall(b"GET /api/hub/events HTTP/1.0\r\nHost: hub\r\n\r\n")
    return sock


def outcome(sock):
    """
    What the hub made of an L{openStream}: L{STREAMING} (its first
    message came), L{TOO_MANY} (a 429), or L{REFUSED} (closed unanswered).
    """
    data = b""
    try:
        while b"event: hub" not in data:
            more = sock.recv(65536)
            if not more:
                break
            data += more
    except ConnectionResetError:
        pass
    if b"event: hub" in data:
        return STREAMING
    if data.startswith(b"HTTP/1.0 429 "):
        sock.close()
        return TOO_MANY
    if data:
        raise AssertionError("unexpected answer %r" % (data[:200],))
    sock.close()
    return REFUSED


class DescriptorReserveTests(SynchronousTestCase):
    """
    With its default limits and C{ulimit -n 256}, the hub never lets the
    web face take the descriptors the game ports need.
    """

    def setUp(self):
        self.server = GamehubServer(
            self, games=("gomoku", "checkers", "web"),
            maxOpenFiles=MAX_OPEN_FILES)
        self.web = self.server.port("web")
        self.streams = []
        self.addCleanup(self.closeStreams)

    def closeStreams(self):
        for sock in self.streams:
            sock.close()

    def open(self, source, count):
        """
        Open C{count} streams from C{source}, one after the other: the
        outcome of each.
        """
        outcomes = []
        for _ in range(count):
            sock = openStream(self.web, source)
            result = outcome(sock)
            if result == STREAMING:
                self.streams.append(sock)
            outcomes.append(result)
        return outcomes

    def openFiles(self):
        return len(os.listdir("/proc/%d/fd" % (self.server.pid,)))

    def test_streamsPastTheCaps(self):
        """
        One address gets C{--web-max-streams-per-ip} streams, then 429s;
        more addresses get streams until the hub's connections reach the
        soft limit less the reserve and the overhead, and then are
        refused as they connect; the hub stays well below its descriptor
        limit, and a gomoku and a checkers player are still answered.
        """
        first = self.open("127.0.0.1", STREAMS_PER_IP + 20)
        self.assertEqual(first, [STREAMING] * STREAMS_PER_IP
                         + [TOO_MANY] * 20)
        budget = MAX_OPEN_FILES - RESERVE - DESCRIPTOR_OVERHEAD
        outcomes = []
        for n in range(2, 10):
            outcomes += self.open("127.0.0.%d" % (n,), STREAMS_PER_IP)
        self.assertEqual(outcomes.count(TOO_MANY), 0)
        accepted = STREAMS_PER_IP + outcomes.count(STREAMING)
        self.assertLessEqual(accepted, budget)
        self.assertGreater(accepted, budget - 8)
        self.assertGreaterEqual(outcomes.count(REFUSED), 150)
        self.assertEqual(outcomes[-100:], [REFUSED] * 100)
        self.assertLess(self.openFiles(), MAX_OPEN_FILES - RESERVE // 2)

        gomoku = GomokuClient(self.server.port("gomoku"))
        self.addCleanup(gomoku.close)
        session = gomoku.nextSession()
        gomoku.send(gomokuWire.regMessage("ann", session))
        answer = gomoku.receive()
        self.assertEqual((answer["msg_type"], answer["status"]),
                         (gomokuWire.MSG_RESULT, 0))
        checkers = CheckersClient(self.server.port("checkers"))
        self.addCleanup(checkers.close)
        checkers.send(checkersWire.JOIN_ROOM_OP, "r1", "bob")
        self.assertEqual(checkers.receive().op,
                         checkersWire.JOIN_ROOM_REPLY_OP)

        self.server.waitForLog(r"\(--web-max-streams-per-ip\)")
        self.server.waitForLog(r"too many connections \(--web-fd-reserve\)")
        self.assertNotIn("EMFILE", "".join(self.server.output))
