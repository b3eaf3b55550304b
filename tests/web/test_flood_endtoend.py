"""
The WebSocket floods of issue 33 against the real C{twistd -n gamehub} at
its default limits, with a gomoku game going on: a message that never
ends (empty continuation frames) and a flood of pings.  The flooding
connection is cut within a second, and again each time it comes back,
the game's moves are all answered meanwhile, and the hub's memory comes
back to within 5 MB of where it was.  (The game's latency under the same
floods is measured by C{bench/web_hostile.py}, not asserted here.)
"""

import socket
import struct
import threading
import time

from twisted.trial.unittest import SynchronousTestCase

from tests.endtoend import TIMEOUT, GamehubServer, GomokuSteps, waitUntil
from tests.gomoku import test_endtoend as gomokuEndToEnd

MASK = b"\x01\x02\x03\x04"
#: KiB the hub's RSS may keep after a flood.
SETTLED_KIB = 5 * 1024


def frame(payload, opcode, fin=True):
    """
    One masked client frame of a short C{payload}.
    """
    return (bytes([(0x80 if fin else 0) | opcode, 0x80 | len(payload)])
            + MASK + bytes(b ^ MASK[i % 4] for i, b in enumerate(payload)))


def rssKiB(pid):
    with open("/proc/%d/status" % (pid,)) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


class Flooder:
    """
    Opens C{/ws} from 127.0.0.2, sends C{opening} and then C{chunk} again
    and again until the hub closes it, and (with C{again}) opens it again
    each time, until stopped; in a thread of its own.

    @ivar cuts: seconds from each upgraded connection's first flood byte
        to its close.
    @ivar refused: connections closed (or answered) without an upgrade.
    """

    def __init__(self, port, opening, chunk):
        self.port = port
        self.opening = opening
        self.chunk = chunk
        self.cuts = []
        self.refused = 0
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def stop(self):
        self.running = False
        self.thread.join(TIMEOUT)

    def run(self):
        while self.running:
            try:
                self.once()
            except OSError:
                self.refused += 1
                time.sleep(0.01)

    def once(self):
        sock = socket.create_connection(("127.0.0.1", self.port),
                                        timeout=TIMEOUT,
                                        source_address=("127.0.0.2", 0))
        try:
            sock.sendall(
                b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                b"Sec-WebSocket-Version: 13\r\n\r\n" % (self.port,))
            answer = b""
            while b"\r\n\r\n" not in answer:
                more = sock.recv(4096)
                if not more:
                    break
                answer += more
            if not answer.startswith(b"HTTP/1.1 101"):
                self.refused += 1
                return
            started = time.monotonic()
            sock.settimeout(1.0)
            try:
                sock.sendall(self.opening)
                while self.running:
                    sock.sendall(self.chunk)
            except OSError:
                self.cuts.append(time.monotonic() - started)
        finally:
            sock.close()


class FloodTests(GomokuSteps, SynchronousTestCase):
    """
    A flood on C{/ws} while two players play gomoku.
    """

    def setUp(self):
        self.server = GamehubServer(self, games=("gomoku", "web"))
        self.port = self.server.port("gomoku")

    client = gomokuEndToEnd.GomokuEndToEndTests.client
    startGame = gomokuEndToEnd.GomokuEndToEndTests.startGame

    def flood(self, opening, oneFrame, why):
        """
        Flood with C{opening} then C{oneFrame}s while the game goes on:
        the connection is cut within a second (the hub logging C{why}),
        and each time it comes back; every move is answered; the hub's
        RSS comes back within L{SETTLED_KIB} of where it was.
        """
        owner, guest = self.startGame()
        self.move(guest, owner, 7, 7)
        before = rssKiB(self.server.pid)
        flooder = Flooder(self.server.port("web"), opening,
                          oneFrame * (65536 // len(oneFrame)))
        self.addCleanup(flooder.stop)
        waitUntil(lambda: flooder.cuts, 1.0 + 0.1,
                  lambda: "not cut within a second:\n"
                  + "".join(self.server.output))
        self.assertLess(flooder.cuts[0], 1.0)
        self.server.waitForLog(why)
        for i in range(6):
            # Apart: no five in a row.
            self.move(owner, guest, 2 * i, 0)
            self.move(guest, owner, 2 * i, 2)
        cuts = len(flooder.cuts)
        flooder.stop()
        self.assertTrue(all(cut < 1.0 for cut in flooder.cuts),
                        flooder.cuts)
        waitUntil(lambda: rssKiB(self.server.pid) <= before + SETTLED_KIB,
                  10, lambda: "RSS {} KiB, {} KiB before".format(
                      rssKiB(self.server.pid), before))
        self.move(owner, guest, 8, 8)
        return cuts, flooder.refused

    def test_emptyContinuations(self):
        """
        A message that never ends: a first frame without FIN, then empty
        continuations as fast as the socket takes them.
        """
        self.flood(frame(b'{"type":', 1, fin=False), frame(b"", 0, False),
                   r"a message in more than 16 frames \(ws-message-frames\)")

    def test_pings(self):
        """
        Pings as fast as the socket takes them (the pongs never read).
        """
        self.flood(b"", frame(b"ping", 9),
                   r"over 100 frames a second \(--request-rate\)")

    def test_closeCode(self):
        """
        A flooder that reads is sent the close code before the cut: 1009
        for a message in too many frames.
        """
        sock = socket.create_connection(
            ("127.0.0.1", self.server.port("web")), timeout=TIMEOUT)
        self.addCleanup(sock.close)
        sock.sendall(b"GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n"
                     b"Connection: Upgrade\r\nSec-WebSocket-Key: "
                     b"dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     b"Sec-WebSocket-Version: 13\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(4096)
        self.assertTrue(answer.startswith(b"HTTP/1.1 101"))
        sock.sendall(frame(b"{", 1, fin=False) + frame(b"", 0, False) * 16)
        data = answer.split(b"\r\n\r\n", 1)[1]
        while len(data) < 4:
            more = sock.recv(4096)
            if not more:
                break
            data += more
        self.assertEqual(data[0], 0x88)
        self.assertEqual(struct.unpack("!H", data[2:4])[0], 1009)
