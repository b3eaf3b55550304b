"""
End-to-end harness: the real C{twistd -n gamehub} on free loopback ports.

    server = GamehubServer(self, "--grace-seconds", "5")
    port = server.port("gomoku")

Every enabled protocol listens on C{tcp:0:interface=127.0.0.1}; the ports
the kernel picked are read from the server's log lines ("GomokuFactory
starting on 43215").  The server is stopped by the test's cleanup.  Reads
are bounded by timeouts, so a broken server fails a test instead of
hanging it.
"""

import os
import re
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from hub.wire import gomoku as gomokuWire

TIMEOUT = 20.0
FACTORIES = {
    "gomoku": "GomokuFactory",
    "checkers": "CheckersFactory",
    "splendor": "SplendorFactory",
}
# The web face listens too when "web" is among the games asked for.
WEB = "web"
WEB_SITE = "HubSite"


def twistdCommand():
    """
    The C{twistd} of the Python running the tests.
    """
    beside = os.path.join(os.path.dirname(sys.executable), "twistd")
    if os.path.exists(beside):
        return [beside]
    found = shutil.which("twistd")
    if found:
        return [found]
    return [sys.executable, "-c",
            "from twisted.scripts.twistd import run; run()"]


def _fileLimit(maxOpenFiles):
    """
    What a child runs before it executes: lower its soft descriptor limit
    to C{maxOpenFiles}; None when it is None (nothing to run).
    """
    if maxOpenFiles is None:
        return None

    def preexec():
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (maxOpenFiles, hard))
    return preexec


def waitUntil(condition, timeout, what, interval=0.1):
    """
    Ask C{condition()} every C{interval} seconds until it gives a true
    value, for at most C{timeout} seconds (blocking: for a test thread
    waiting on real processes, not on the reactor it runs).

    @param what: the failure's text, or a callable giving it (such as
        the logs, read when the time is up).
    @return: that value.
    @raise AssertionError: with C{what}, once the time is up.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(what() if callable(what) else what)
        time.sleep(interval)


class GamehubServer:
    """
    A C{twistd -n gamehub} subprocess for one test.

    @param testCase: the test; the server stops at its cleanup.
    @param extra: more gamehub options.
    @param games: the protocols to enable (the others get C{none}).
    @param maxOpenFiles: the server's soft C{RLIMIT_NOFILE} (its
        C{ulimit -n}), or None for this process's.
    @param env: the server's environment, or None for this process's.
    """

    def __init__(self, testCase, *extra, games=("gomoku", "checkers",
                                                   "splendor"),
                 maxOpenFiles=None, env=None):
        self.ports = {}
        self.output = []
        self._drain = None
        self._logged = threading.Condition()
        args = twistdCommand() + ["-n", "--pidfile=", "gamehub"]
        for kind in tuple(FACTORIES) + (WEB,):
            desc = "tcp:0:interface=127.0.0.1" if kind in games else "none"
            args.append("--{}-port={}".format(kind, desc))
        args.extend(extra)
        workdir = tempfile.mkdtemp(prefix="gamehub-e2e-")
        testCase.addCleanup(shutil.rmtree, workdir, True)
        #: the server's working directory (its default records file)
        self.workdir = workdir
        self.process = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=workdir, preexec_fn=_fileLimit(maxOpenFiles), env=env)
        testCase.addCleanup(self.stop)
        self._waitForPorts(games)

    def _waitForPorts(self, games):
        factories = dict(FACTORIES, **{WEB: WEB_SITE})
        wanted = {factories[kind]: kind for kind in games}
        pattern = re.compile(r"(\w+Factory|HubSite) starting on (\d+)")
        deadline = time.monotonic() + TIMEOUT
        fd = self.process.stdout.fileno()
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
        pending = b""
        while wanted and time.monotonic() < deadline:
            if not selector.select(deadline - time.monotonic()):
                break
            data = os.read(fd, 65536)
            if not data:
                break
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                text = line.decode("utf-8", "replace")
                self.output.append(text + "\n")
                match = pattern.search(text)
                if match and match.group(1) in wanted:
                    self.ports[wanted.pop(match.group(1))] = int(
                        match.group(2))
        selector.close()
        if pending:
            self.output.append(pending.decode("utf-8", "replace"))
        if not wanted:
            # Keep reading the log so that the server never blocks on a
            # full pipe.
            self._drain = threading.Thread(target=self._readLog, args=(fd,),
                                           daemon=True)
            self._drain.start()
        if wanted:
            self.stop()
            raise AssertionError("gamehub did not start {}:\n{}".format(
                sorted(wanted.values()), "".join(self.output)))

    def _readLog(self, fd):
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            with self._logged:
                if data:
                    self.output.append(data.decode("utf-8", "replace"))
                self._logged.notify_all()
            if not data:
                return

    def waitForLog(self, pattern, count=1, timeout=TIMEOUT):
        """
        Block until the server has logged C{count} lines matching the
        regular expression C{pattern} (the log is read by a thread as it
        comes; nothing polls).

        @raise AssertionError: when that does not happen within C{timeout}
            seconds or the server exits first.
        """
        regex = re.compile(pattern)

        def seen():
            return len(regex.findall("".join(self.output))) >= count

        with self._logged:
            if not self._logged.wait_for(
                    lambda: seen() or self.process.poll() is not None,
                    timeout) or not seen():
                raise AssertionError(
                    "gamehub did not log {} x {!r}:\n{}".format(
                        count, pattern, "".join(self.output)))

    def port(self, kind):
        """
        The port the protocol C{kind} listens on.
        """
        return self.ports[kind]

    def stop(self):
        """
        Stop the server (SIGTERM, then SIGKILL) and collect its output.
        """
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._drain is not None:
            self._drain.join(TIMEOUT)
        elif self.process.stdout and not self.process.stdout.closed:
            rest = self.process.stdout.read()
            if rest:
                self.output.append(rest.decode("utf-8", "replace"))
        if self.process.stdout:
            self.process.stdout.close()

    def kill(self):
        """
        SIGKILL the server once its engine sandbox's start-up probe has
        answered (for a server that records games, so runs engines): a
        hub killed while bwrap sets a sandbox up leaves that sandbox's
        first process waiting for ever (docs/deploy.md, "A killed hub").
        """
        self.waitForLog(r"engine sandbox: ")
        self.process.kill()
        self.process.wait()

    @property
    def pid(self):
        """
        The server's process id.
        """
        return self.process.pid


class BlockingClient:
    """
    A loopback TCP client with reads bounded by L{TIMEOUT}, from another
    loopback address C{source} if given (127.0.0.0/8 is all loopback).
    """

    def __init__(self, port, host="127.0.0.1", source=None):
        self.sock = socket.create_connection(
            (host, port), timeout=TIMEOUT,
            source_address=(source, 0) if source else None)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def sendBytes(self, data):
        """
        Send raw bytes.
        """
        self.sock.sendall(data)

    def recvSome(self):
        """
        The next bytes the server sends (b"" on EOF).
        """
        return self.sock.recv(65536)

    def isClosedByPeer(self):
        """
        Whether the server closes the connection (reads up to EOF).
        """
        try:
            while self.sock.recv(65536):
                pass
        except ConnectionResetError:
            pass
        except socket.timeout:
            return False
        return True

    def close(self):
        """
        Close the connection.
        """
        self.sock.close()


class GomokuClient(BlockingClient):
    """
    A blocking gomoku client built on L{hub.wire.gomoku}.
    """

    def __init__(self, port, host="127.0.0.1"):
        BlockingClient.__init__(self, port, host)
        self.scanner = gomokuWire.FrameScanner()
        self.received = []
        self.session = 0

    def send(self, message):
        """
        Send one message (a dict).
        """
        self.sendBytes(gomokuWire.encodeMessage(message))

    def nextSession(self):
        """
        The next request session number, as the original client counts.
        """
        self.session += 1
        return self.session

    def receive(self):
        """
        The next message from the server.
        """
        while not self.received:
            data = self.recvSome()
            if not data:
                raise EOFError("server closed the connection")
            for payload in self.scanner.feed(data):
                self.received.append(gomokuWire.decodeMessage(payload))
        return self.received.pop(0)


class GomokuSteps:
    """
    The steps of a gomoku game between two L{GomokuClient}s, for a
    L{twisted.trial.unittest.SynchronousTestCase}.
    """

    def expect(self, client, msgType, **fields):
        """
        The next message of C{client}: of C{msgType}, with C{fields}.
        """
        message = client.receive()
        self.assertEqual(message["msg_type"], msgType, message)
        for key, value in fields.items():
            self.assertEqual(message[key], value, message)
        return message

    def joinAndStart(self, owner, guest, room, password=""):
        """
        C{guest} joins C{owner}'s C{room} and is ready; C{owner} starts
        the game.
        """
        guest.send(gomokuWire.roomOpMessage(
            gomokuWire.RO_ROOM_JOIN, room, password, guest.nextSession()))
        self.expect(owner, gomokuWire.MSG_ROOM,
                    type=gomokuWire.RI_PLAYER_JOIN)
        self.expect(guest, gomokuWire.MSG_RESULT, status=0)
        self.expect(guest, gomokuWire.MSG_ROOM,
                    type=gomokuWire.RI_PLAYER_JOIN)
        guest.send(gomokuWire.stateMessage(gomokuWire.PLAYER_STATE_READY,
                                           guest.nextSession()))
        self.expect(owner, gomokuWire.MSG_ROOM,
                    type=gomokuWire.RI_PLAYER_STATE)
        self.expect(guest, gomokuWire.MSG_RESULT, status=0)
        owner.send(gomokuWire.requestMessage(gomokuWire.REQ_GAME_START,
                                             owner.nextSession()))
        self.expect(owner, gomokuWire.MSG_RESULT, status=0)
        self.expect(owner, gomokuWire.MSG_GAME,
                    state=gomokuWire.GAME_STATE_RUNNING)
        self.expect(guest, gomokuWire.MSG_GAME,
                    state=gomokuWire.GAME_STATE_RUNNING)

    def move(self, mover, other, x, y):
        """
        C{mover} plays at C{(x, y)}, and C{other} is told.
        """
        session = mover.nextSession()
        mover.send(gomokuWire.moveMessage(0, x, y, gomokuWire.INVALID_TOKEN,
                                          session))
        self.expect(mover, gomokuWire.MSG_RESULT, status=0, session=session)
        mover.send(gomokuWire.gameMessage(2, 0, gomokuWire.INVALID_TOKEN,
                                          session))
        self.expect(other, gomokuWire.MSG_MOVE, x=x, y=y)
