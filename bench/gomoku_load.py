"""
Load generator for gamehub's gomoku protocol, with a bare echo baseline.

Opens gomoku connections over loopback to C{twistd -n gamehub} (started
here as a subprocess unless C{--port} names a running one), registers
them, pairs them into rooms (create, join, ready, start) and plays games
continuously.  In the same run, a bare Twisted protocol with the same
C{<json>} framing that echoes every frame is measured with the same
client loop.

Modes:
  - C{saturate}: every game moves as soon as the previous move reaches
    the opponent.  Compare the hub's moves/s to the baseline's round
    trips/s (target: at least 0.5x).
  - C{paced}: every game moves once per C{--interval} seconds; report the
    latency from a move being written to the opponent reading its
    C{msg_move} (target: p99 <= 10 ms with 1,000 games).
  - C{idle}: C{--connections} registered connections doing nothing;
    report the server's RSS per connection (target: <= 20 KB).

Every game plays the same 225-move sequence, which fills the board with
no five and ends in a draw; then the guest gets ready again, the owner
starts the next game, and so on.

Examples::

    python bench/gomoku_load.py --mode saturate --games 100 --seconds 10
    python bench/gomoku_load.py --mode paced --games 1000 --seconds 20
    python bench/gomoku_load.py --mode idle --connections 10000
    python bench/gomoku_load.py --no-baseline --hub-args "--db none"
    python bench/gomoku_load.py --names-compare --rounds 4

C{--names-compare} measures what owned names cost: two hubs on one SQLite
database, C{--names open} with plain names (C{o7}, C{g7}) and C{--names
accounts} with the keyed names (C{o7#KEY}) of accounts registered first
(through L{hub.accounts.model.Accounts.add}, what C{python -m hub.accounts
add} calls), run in alternating rounds (the order flips every round);
target: accounts / open at least 0.97.

Not a test: it prints figures.
"""

import argparse
import gc
import json
import os
import random
import resource
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from hub.wire import gomoku as wire  # noqa: E402

now = time.perf_counter


def drawSequence():
    """
    225 moves, black first, that fill the board with no five in a row.

    Cell C{(x, y)} is black when C{(x + 2y) mod 4 < 2}: runs are at most
    two long in every direction, and there are 113 black, 112 white.
    """
    cells = [(x, y) for y in range(15) for x in range(15)]
    blacks = [c for c in cells if (c[0] + 2 * c[1]) % 4 < 2]
    whites = [c for c in cells if (c[0] + 2 * c[1]) % 4 >= 2]
    sequence = []
    for i in range(225):
        sequence.append(blacks[i // 2] if i % 2 == 0 else whites[i // 2])
    return sequence


SEQUENCE = drawSequence()


# -- measurement ---------------------------------------------------------

class Stats:
    """
    Moves (or round trips) and their latencies within the window.
    """

    def __init__(self):
        self.measuring = False
        self.count = 0
        self.latencies = []
        self.errors = 0
        self.games = 0
        #: with a target, the window closes at that many and C{reached}
        #: (a Deferred) fires
        self.target = None
        self.reached = None

    def record(self, sentAt):
        """
        One move reached the opponent (or one echo came back).
        """
        if self.measuring:
            self.count += 1
            self.latencies.append(now() - sentAt)
            if self.count == self.target:
                self.measuring = False
                self.reached.callback(None)

    def summary(self, seconds):
        """
        A dict of the figures.
        """
        lat = sorted(self.latencies)

        def pct(p):
            if not lat:
                return None
            return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000,
                         3)
        return {"per_second": round(self.count / seconds, 1),
                "count": self.count, "p50_ms": pct(0.50),
                "p99_ms": pct(0.99), "max_ms": pct(1.0),
                "errors": self.errors, "games_finished": self.games}


def rssKiB(pid):
    """
    VmRSS of process C{pid}, in KiB.
    """
    with open("/proc/%d/status" % (pid,)) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise ValueError("no VmRSS")


def wakeups(pid):
    """
    How many times process C{pid} has slept and been woken so far (its
    voluntary context switches): once per reactor wake-up that found it
    idle.
    """
    with open("/proc/%d/status" % (pid,)) as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    return 0


def cpuSeconds(pid):
    """
    User + system CPU seconds used so far by process C{pid}.
    """
    return sum(userSystemSeconds(pid))


def userSystemSeconds(pid):
    """
    User and system CPU seconds used so far by process C{pid}, a pair.
    """
    with open("/proc/%d/stat" % (pid,)) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def busySeconds():
    """
    CPU seconds all CPUs spent busy so far (from /proc/stat).
    """
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


# -- servers -------------------------------------------------------------

def freePort():
    """
    A TCP port free on 127.0.0.1 just now.
    """
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def waitForPort(port, proc, timeout=20.0, interval=0.1):
    """
    Block until 127.0.0.1:C{port} accepts connections, trying every
    C{interval} seconds.
    """
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("server exited with %s" % (proc.returncode,))
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(interval)
    raise RuntimeError("port %d never opened" % (port,))


def startHub(port, logPath, twistdArgs=(), extra=(), cpu=None):
    """
    Start C{twistd -n gamehub} serving gomoku only on 127.0.0.1:C{port}
    (C{extra} options come last, so they may override that); with
    C{cpu}, pinned to that CPU from its start (as C{taskset -c} would).
    """
    twistd = os.path.join(os.path.dirname(sys.executable), "twistd")
    if not os.path.exists(twistd):
        twistd = "twistd"
    args = [twistd, "-n", "--pidfile=", "--logfile=" + logPath]
    args.extend(twistdArgs)
    args += ["gamehub",
            "--gomoku-port", "tcp:%d:interface=127.0.0.1" % (port,),
            "--checkers-port", "none", "--splendor-port", "none"]
    # The load comes from one address at full speed: measure the hub,
    # not its abuse limits.
    args += ["--max-connections", "0", "--max-connections-per-ip", "0",
             "--request-rate", "0"]
    args.extend(extra)
    pin = None if cpu is None else (
        lambda: os.sched_setaffinity(0, {cpu}))
    proc = subprocess.Popen(args, cwd=tempfile.gettempdir(),
                            stdin=subprocess.DEVNULL, preexec_fn=pin)
    waitForPort(port, proc)
    return proc


def stopProcess(proc):
    """
    Stop a server started here (SIGTERM, then SIGKILL after 30 s).
    """
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def listenSink():
    """
    Listen on a free loopback port, on this process's reactor, for the
    echo server's second sends, and drop what comes: the port.
    """
    from twisted.internet import reactor
    from twisted.internet.protocol import Factory, Protocol

    class Sink(Protocol):
        def dataReceived(self, data):
            pass

    return reactor.listenTCP(0, Factory.forProtocol(Sink),
                             interface="127.0.0.1").getHost().port


def startEcho(port, immediate=False, sinkPort=None):
    """
    Start this script as the bare echo server on 127.0.0.1:C{port}; with
    C{immediate}, writing through the hub's L{ImmediateWriter}; with
    C{sinkPort}, sending each frame a second time, to that port.
    """
    args = [sys.executable, os.path.abspath(__file__), "--echo-server",
            str(port)]
    if immediate:
        args.append("--echo-immediate")
    if sinkPort is not None:
        args += ["--echo-sink", str(sinkPort)]
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL)
    waitForPort(port, proc)
    return proc


def runEchoServer(port, immediate=False, sinkPort=None):
    """
    The baseline: reassemble C{<json>} frames and write each one back in
    one write, as the hub writes each message: with Twisted's own
    C{transport.write}, or with C{immediate} through the hub's
    L{ImmediateWriter}.  With C{sinkPort}, each frame is also sent once
    more, in a C{send} of its own, to a TCP connection to that port (the
    load generator's sink), as the hub sends a move to the mover and to
    the opponent: two sends a move.
    """
    import socket

    from twisted.internet import reactor
    from twisted.internet.protocol import Factory, Protocol

    from hub.connection.immediate import ImmediateWriter

    sink = None
    if sinkPort is not None:
        sink = socket.create_connection(("127.0.0.1", sinkPort))
        sink.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sink.setblocking(False)

    def sendToSink(frame):
        try:
            sink.send(frame)
        except BlockingIOError:
            # The sink reads all it is sent; a full buffer drops a copy.
            pass

    class Echo(Protocol):
        def connectionMade(self):
            self.transport.setTcpNoDelay(True)
            self.scanner = wire.FrameScanner()
            self.write = (ImmediateWriter(self.transport).write
                          if immediate else self.transport.write)

        def dataReceived(self, data):
            write = self.write
            try:
                frames = self.scanner.feed(data)
            except wire.FrameTooLong:
                self.transport.loseConnection()
                return
            for payload in frames:
                frame = b"<" + payload + b">"
                write(frame)
                if sink is not None:
                    sendToSink(frame)

    reactor.listenTCP(port, Factory.forProtocol(Echo), backlog=1024,
                      interface="127.0.0.1")
    reactor.run()


# -- clients -------------------------------------------------------------

def makeClientClasses():
    """
    The client protocols (defined late so the echo server can import this
    module without a reactor of the parent's choice).
    """
    from twisted.internet import defer
    from twisted.internet.protocol import Protocol

    from hub.connection.immediate import ImmediateWriter

    class Conn(Protocol):
        """
        One client connection: frames in, bytes out.
        """

        def __init__(self, bench, table, role):
            self.bench = bench
            self.table = table
            self.role = role
            self.scanner = wire.FrameScanner()
            self.session = 0
            self.step = 0
            self.closed = False

        def connectionMade(self):
            self.transport.setTcpNoDelay(True)
            # The hub's own way of writing: the load generator's cost per
            # message stays small, so what is measured is the server.
            self.writer = ImmediateWriter(self.transport)

        def connectionLost(self, reason):
            self.closed = True
            if not self.bench.stopping:
                self.bench.stats.errors += 1

        def dataReceived(self, data):
            for payload in self.scanner.feed(data):
                self.table.frame(self, payload)

        def send(self, message):
            self.session += 1
            message["session"] = self.session
            self.writer.write(wire.encodeMessage(message))

    class EchoTable:
        """
        Two connections taking turns to send a move frame through the
        echo server, each waiting for its echo: the loop of a game, one
        frame in flight, with the same client-side encoding.
        """

        def __init__(self, bench, index):
            self.bench = bench
            self.index = index
            self.conns = []
            self.turn = 0
            self.sentAt = 0.0
            self.pending = None
            self.moveIndex = 0
            self.ready = defer.Deferred()

        def attach(self, conn):
            self.conns.append(conn)
            if len(self.conns) == 2:
                self.ready.callback(self)

        def begin(self):
            self.schedule(self.bench.firstDelay())

        def schedule(self, delay):
            if self.bench.stopping:
                return
            if delay > 0:
                self.pending = self.bench.reactor.callLater(
                    delay, self.move)
            else:
                self.move()

        def move(self):
            self.pending = None
            if self.bench.stopping:
                return
            x, y = SEQUENCE[self.moveIndex]
            self.moveIndex = (self.moveIndex + 1) % len(SEQUENCE)
            self.sentAt = now()
            self.conns[self.turn].send(
                wire.moveMessage(wire.CHESS_BLANK, x, y, None, None))

        def frame(self, conn, payload):
            if conn is not self.conns[self.turn]:
                self.bench.stats.errors += 1
                return
            self.bench.stats.record(self.sentAt)
            self.turn = 1 - self.turn
            self.schedule(self.sentAt + self.bench.interval - now())

    class GameTable:
        """
        An owner and a guest in one room playing draw games in a loop.
        The owner plays white (the original client's default), so the
        guest moves first.
        """

        def __init__(self, bench, index):
            self.bench = bench
            self.index = index
            self.name = "r%s" % (index,)
            self.owner = None
            self.guest = None
            self.registered = 0
            self.ready = defer.Deferred()
            self.moveIndex = 0
            self.sentAt = 0.0
            self.ended = 0
            self.started = 0
            self.pending = None
            self.playing = False
            self.mover = None

        def attach(self, conn):
            if conn.role == "owner":
                self.owner = conn
            else:
                self.guest = conn
            keys = self.bench.keys
            if keys is None:
                name = "%s%s" % (conn.role[0], self.index)
            else:
                # --names-compare: the accounts' names, keyed if known.
                name = accountName(conn.role, self.number)
                if keys:
                    name += "#" + keys[name]
            conn.send(wire.regMessage(name, None))

        def begin(self):
            self.owner.send(wire.roomOpMessage(
                wire.RO_ROOM_CREATE, self.name, "", None))

        def frame(self, conn, payload):
            if payload.startswith(b'{"chess":'):
                self.opponentMoved(conn)
            elif payload.startswith(b'{"msg_type":1,'):
                if b'"status":0,' not in payload:
                    self.bench.stats.errors += 1
                    self.bench.log("status", conn.role, payload)
                    if not self.ready.called:
                        self.ready.errback(RuntimeError(
                            "setup refused: %r" % (payload,)))
                    return
                self.resultOk(conn)
            elif payload.startswith(b'{"ex":'):
                msg = wire.decodeMessage(payload)
                if msg["state"] == wire.GAME_STATE_RUNNING:
                    self.gameStarted(conn)
                else:
                    self.gameEnded(conn, msg)
            elif payload.startswith(b'{"msg_type":5,'):
                msg = wire.decodeMessage(payload)
                if (conn is self.owner
                        and msg["type"] == wire.RI_PLAYER_STATE
                        and msg["room"]["gs"] == wire.PLAYER_STATE_READY):
                    self.owner.send(wire.requestMessage(
                        wire.REQ_GAME_START, None))
            else:
                self.bench.log("unexpected", conn.role, payload)

        def resultOk(self, conn):
            conn.step += 1
            step = conn.step
            if step == 1:
                # Registered.
                self.registered += 1
                if self.registered == 2:
                    self.ready.callback(self)
            elif conn is self.owner and step == 2:
                # Room created: the guest joins.
                self.guest.send(wire.roomOpMessage(
                    wire.RO_ROOM_JOIN, self.name, "", None))
            elif conn is self.guest and step == 2:
                # Joined: get ready.
                self.getReady()

        def getReady(self):
            self.guest.step = 2
            self.guest.send(wire.stateMessage(
                wire.PLAYER_STATE_READY, None))

        def gameStarted(self, conn):
            self.started += 1
            if self.started == 2:
                self.started = 0
                self.moveIndex = 0
                self.playing = True
                self.schedule(self.guest, self.bench.firstDelay())

        def schedule(self, conn, delay):
            if self.bench.stopping:
                return
            if delay > 0:
                self.pending = self.bench.reactor.callLater(
                    delay, self.move, conn)
            else:
                self.move(conn)

        def move(self, conn):
            self.pending = None
            if self.bench.stopping or not self.playing:
                return
            x, y = SEQUENCE[self.moveIndex]
            self.moveIndex += 1
            self.mover = conn
            self.sentAt = now()
            conn.send(wire.moveMessage(wire.CHESS_BLANK, x, y, None, None))

        def opponentMoved(self, conn):
            if conn is self.mover:
                self.bench.stats.errors += 1
                return
            self.bench.stats.record(self.sentAt)
            if self.moveIndex < len(SEQUENCE):
                self.schedule(
                    conn, self.sentAt + self.bench.interval - now())
            else:
                self.playing = False

        def gameEnded(self, conn, msg):
            if msg["ex"] != wire.GAME_RSLT_DRAW:
                self.bench.stats.errors += 1
            self.ended += 1
            if self.ended == 2:
                self.ended = 0
                self.playing = False
                if self.bench.stats.measuring:
                    self.bench.stats.games += 1
                self.getReady()

    class IdleTable:
        """
        One connection that registers and then does nothing.
        """

        def __init__(self, bench, index):
            self.bench = bench
            self.index = index
            self.ready = defer.Deferred()
            self.conn = None

        def attach(self, conn):
            self.conn = conn
            conn.send(wire.regMessage("i%s" % (self.index,), None))

        def frame(self, conn, payload):
            if b'"status":0,' in payload or b'"name":' in payload:
                if not self.ready.called:
                    self.ready.callback(self)
            else:
                self.bench.stats.errors += 1
                self.bench.log("status", "idle", payload)
                if not self.ready.called:
                    self.ready.errback(RuntimeError(
                        "setup refused: %r" % (payload,)))

    return Conn, EchoTable, GameTable, IdleTable


class Bench:
    """
    One measured run against one server.
    """

    def __init__(self, reactor, port, mode, interval, warmup, seconds,
                 tag="", keys=None, moves=None, gate=None):
        self.reactor = reactor
        #: None, or a function whose Deferred the run awaits between its
        #: set-up and its games (runs side by side start them together)
        self.gate = gate
        #: None, or how many moves the window holds (then C{seconds} is
        #: only its bound)
        self.moves = moves
        #: None: names of the run's own; {}: the accounts' plain names;
        #: else their play keys by name, for keyed names
        self.keys = keys
        self.tag = tag
        self.port = port
        self.mode = mode
        self.interval = interval
        self.warmup = warmup
        self.seconds = seconds
        self.stats = Stats()
        self.stopping = False
        self.tables = []
        self.logged = 0

    def log(self, *what):
        if self.logged < 20:
            self.logged += 1
            print("  [bench]", *what, file=sys.stderr)

    def firstDelay(self):
        """
        Spread the first moves of paced games over one interval.
        """
        if self.interval > 0:
            return random.random() * self.interval
        return 0

    def connect(self, table, role):
        from twisted.internet.endpoints import TCP4ClientEndpoint
        from twisted.internet.protocol import Factory
        conn = self.Conn(self, table, role)
        endpoint = TCP4ClientEndpoint(self.reactor, "127.0.0.1", self.port,
                                      timeout=30)
        d = endpoint.connect(Factory.forProtocol(lambda: conn))
        d.addCallback(lambda _: table.attach(conn))
        return d

    def run(self, count, tableClass, roles, serverPid):
        """
        Set up C{count} tables, run the window, return the figures.
        """
        from twisted.internet import defer, task
        (self.Conn, echoTable, gameTable, idleTable) = makeClientClasses()
        cls = {"echo": echoTable, "game": gameTable,
               "idle": idleTable}[tableClass]
        return defer.ensureDeferred(
            self._run(count, cls, roles, serverPid, defer, task))

    async def _run(self, count, cls, roles, serverPid, defer, task):
        rssBefore = rssKiB(serverPid)
        sem = defer.DeferredSemaphore(64)
        setupStart = now()
        waits = []
        for i in range(count):
            table = cls(self, "%s%d" % (self.tag, i))
            table.number = i
            self.tables.append(table)
            for role in roles:
                await sem.acquire()
                d = self.connect(table, role)
                d.addBoth(lambda r: (sem.release(), r)[1])
                waits.append(d)
            waits.append(table.ready)
        await defer.gatherResults(waits, consumeErrors=True)
        setup = now() - setupStart
        # Keep the load generator's own collector pauses out of the
        # figures: what exists now is never collected again.
        gc.collect()
        gc.freeze()
        result = {"connections": count * len(roles),
                  "setup_seconds": round(setup, 2)}
        if cls.__name__ == "IdleTable":
            await task.deferLater(self.reactor, 2.0, lambda: None)
            rssAfter = rssKiB(serverPid)
            result.update({
                "rss_before_kib": rssBefore, "rss_after_kib": rssAfter,
                "kib_per_connection": round(
                    (rssAfter - rssBefore) / (count * len(roles)), 2),
                "errors": self.stats.errors})
            self.stopping = True
            return result
        if self.gate is not None:
            await self.gate()
        return await self.measure([serverPid], result)

    async def measure(self, serverPids, result=None):
        """
        Start the games of the tables set up, warm up, measure the window
        and return the figures (added to C{result}); the server's CPU and
        memory are those of the processes C{serverPids}, summed.
        """
        from twisted.internet import task

        def serverCpu():
            return sum(cpuSeconds(pid) for pid in serverPids)

        def serverSystem():
            return sum(userSystemSeconds(pid)[1] for pid in serverPids)
        result = {} if result is None else result
        for table in self.tables:
            table.begin()
        await task.deferLater(self.reactor, self.warmup, lambda: None)
        cpu0 = (serverCpu(), cpuSeconds(os.getpid()), busySeconds(),
                serverSystem())
        woken0 = sum(wakeups(pid) for pid in serverPids)
        self.stats.measuring = True
        t0 = now()
        if self.moves:
            # The window closes at that many moves, or (with fewer, as
            # its count says) after the seconds.
            from twisted.internet import defer
            reached = self.stats.reached = defer.Deferred()
            self.stats.target = self.moves
            bound = self.reactor.callLater(
                self.seconds,
                lambda: reached.called or reached.callback(None))
            await reached
            if bound.active():
                bound.cancel()
        else:
            await task.deferLater(self.reactor, self.seconds, lambda: None)
        self.stats.measuring = False
        elapsed = now() - t0
        cpu1 = (serverCpu(), cpuSeconds(os.getpid()), busySeconds(),
                serverSystem())
        woken1 = sum(wakeups(pid) for pid in serverPids)
        self.stopping = True
        for table in self.tables:
            if table.pending is not None and table.pending.active():
                table.pending.cancel()
        result.update(self.stats.summary(elapsed))
        ops = max(self.stats.count, 1)
        result.update({
            "server_cpu_us_per_op": round(
                1e6 * (cpu1[0] - cpu0[0]) / ops, 1),
            "server_system_us_per_op": round(
                1e6 * (cpu1[3] - cpu0[3]) / ops, 1),
            "client_cpu_us_per_op": round(
                1e6 * (cpu1[1] - cpu0[1]) / ops, 1),
            # How much each wake-up of the server had to do.
            "server_wakeups_per_op": round((woken1 - woken0) / ops, 2)})
        result.update({
            "server_cpu_pct": round(100 * (cpu1[0] - cpu0[0]) / elapsed),
            "client_cpu_pct": round(100 * (cpu1[1] - cpu0[1]) / elapsed),
            "other_cpu_pct": round(100 * (
                (cpu1[2] - cpu0[2]) - (cpu1[0] - cpu0[0])
                - (cpu1[1] - cpu0[1])) / elapsed),
            "server_rss_kib": sum(rssKiB(pid) for pid in serverPids)})
        return result

    def close(self):
        for table in self.tables:
            for attr in ("conns", "owner", "guest", "conn"):
                value = getattr(table, attr, None)
                conns = value if isinstance(value, list) else [value]
                for conn in conns:
                    if conn is not None and conn.transport is not None:
                        conn.transport.abortConnection()


# -- accounts (--names-compare) ----------------------------------------------

def accountName(role, number):
    """
    The account of a table's C{role} (C{o7}, C{g7}: at most 8 characters,
    as account names are).
    """
    return "%s%d" % (role[0], number)


async def registerAccounts(reactor, url, count):
    """
    Register the owners' and guests' accounts of C{count} tables in the
    database at C{url} (made or migrated as the hub does).

    @return: their play keys by name.
    """
    from twisted.internet import defer
    from hub.accounts.model import Accounts
    from hub.records import db
    parsed = db.parseURL(url)
    db.prepare(parsed)
    database = db.Database(parsed, reactor)
    accounts = Accounts(database, reactor)
    keys = {}
    try:
        for start in range(0, count, 16):
            batch = [accountName(role, i) for i in range(
                start, min(count, start + 16)) for role in ("owner", "guest")]
            made = await defer.gatherResults(
                [accounts.add(name, "bench-" + name) for name in batch],
                consumeErrors=True)
            keys.update(zip(batch, made))
    finally:
        database.close()
    return keys


# -- main ------------------------------------------------------------------

def parseArgs(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--mode", choices=["saturate", "paced", "idle"],
                   default="saturate")
    p.add_argument("--games", type=int, default=None,
                   help="games (pairs of connections); default 100 for "
                   "saturate, 1000 for paced")
    p.add_argument("--connections", type=int, default=10000,
                   help="idle mode: registered connections")
    p.add_argument("--seconds", type=float, default=10.0,
                   help="length of the measured window")
    p.add_argument("--warmup", type=float, default=2.0,
                   help="seconds of play before the window")
    p.add_argument("--interval", type=float, default=1.0,
                   help="paced mode: seconds between moves of a game")
    p.add_argument("--port", type=int, default=None,
                   help="gomoku port of a running hub (default: start "
                   "twistd -n gamehub here on a free port)")
    p.add_argument("--server-pid", type=int, default=None,
                   help="pid of the running hub given by --port")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip the echo baseline")
    p.add_argument("--no-hub", action="store_true",
                   help="measure only the echo baseline")
    p.add_argument("--setup-timeout", type=float, default=120.0,
                   help="seconds allowed to connect and pair everyone")
    p.add_argument("--rounds", type=int, default=1,
                   help="alternate baseline and hub this many times")
    p.add_argument("--hub-args", default="",
                   help="more arguments for the hub this script starts, "
                   "one shell-quoted string (e.g. \"--db none\")")
    p.add_argument("--profile", default=None,
                   help="run the hub under cProfile, saving stats here")
    p.add_argument("--no-pin", action="store_true",
                   help="do not pin the server to the first CPU and this "
                   "load generator to the second")
    p.add_argument("--json", action="store_true",
                   help="print the figures as one JSON object")
    p.add_argument("--echo-immediate", action="store_true",
                   help="the echo baseline writes through the hub's "
                   "ImmediateWriter instead of transport.write")
    p.add_argument("--names-compare", action="store_true",
                   help="saturate: --names open with plain names against "
                   "--names accounts with keyed names, on one SQLite "
                   "database, in alternating rounds (no baseline)")
    p.add_argument("--echo-second-send", action="store_true",
                   help="the echo baseline sends each frame a second time, "
                   "to a sink in this process, as the hub sends each move "
                   "twice (to the mover and to the opponent)")
    p.add_argument("--echo-server", type=int, default=None,
                   help=argparse.SUPPRESS)
    p.add_argument("--echo-sink", type=int, default=None,
                   help=argparse.SUPPRESS)
    return p.parse_args(argv)


def raiseFileLimit(needed):
    """
    Raise the soft fd limit to the hard one (inherited by the servers).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard != resource.RLIM_INFINITY and hard < needed:
        print("warning: fd hard limit %d < %d needed" % (hard, needed),
              file=sys.stderr)
    return hard


def cpusToPin():
    """
    A CPU for the server and one for the load generator, from those this
    process may use, or None when it cannot pin (one CPU, or no
    C{sched_setaffinity}).
    """
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    return cpus[0], cpus[1]


def main(argv):
    args = parseArgs(argv)
    if args.echo_server is not None:
        runEchoServer(args.echo_server, args.echo_immediate,
                      args.echo_sink)
        return 0
    if args.mode == "idle":
        count, roles, kind = args.connections, ("solo",), "idle"
        interval = 0.0
        args.rounds = 1
    else:
        count = args.games or (1000 if args.mode == "paced" else 100)
        roles = ("owner", "guest")
        kind = "game"
        interval = args.interval if args.mode == "paced" else 0.0
    raiseFileLimit(count * len(roles) + 100)
    # Servers on one CPU, this process on another: the two sides never
    # share a CPU, in every run alike.
    pinned = None if args.no_pin else cpusToPin()

    def pinServer(pid):
        if pinned:
            os.sched_setaffinity(pid, {pinned[0]})

    procs = []
    results = {"mode": args.mode, "count": count, "interval": interval,
               "echo_immediate": args.echo_immediate,
               "echo_second_send": args.echo_second_send,
               "hub_args": args.hub_args,
               "seconds": args.seconds, "warmup": args.warmup,
               "rounds": [], "cpus": os.cpu_count()}

    def startEchoServer():
        port = freePort()
        sinkPort = None
        if args.echo_second_send:
            sinkPort = listenSink()
        proc = startEcho(port, args.echo_immediate, sinkPort)
        procs.append(proc)
        pinServer(proc.pid)
        return port, proc.pid, proc

    def startHubServer(extra=()):
        if args.port is not None:
            if args.server_pid is None:
                raise SystemExit("--port needs --server-pid")
            pinServer(args.server_pid)
            return args.port, args.server_pid, None
        port = freePort()
        logPath = os.path.join(tempfile.gettempdir(), "gomoku_load_hub.log")
        twistdArgs = []
        if args.profile:
            twistdArgs = ["--profile=" + args.profile,
                          "--profiler=cprofile", "--savestats"]
        proc = startHub(port, logPath, twistdArgs,
                        shlex.split(args.hub_args) + list(extra))
        procs.append(proc)
        pinServer(proc.pid)
        return port, proc.pid, proc

    # Each round gets fresh servers, so that nothing left from a round
    # (players lost mid-game, their grace timers) runs into the next one.
    results["pinned"] = pinned
    if pinned:
        os.sched_setaffinity(0, {pinned[1]})
    servers = []
    namesDB = None
    if args.names_compare:
        if kind != "game" or args.port is not None:
            raise SystemExit("--names-compare: saturate or paced, with "
                             "hubs started here")
        args.no_baseline = args.no_hub = True
        folder = tempfile.mkdtemp(prefix="gomoku-names-")
        namesDB = "sqlite:" + os.path.join(folder, "hub.sqlite")
        for names in ("open", "accounts"):
            servers.append((names, lambda names=names: startHubServer(
                ["--db", namesDB, "--names", names]), kind, roles))
        results["names_db"] = "a fresh SQLite file"
    if not args.no_baseline:
        echoKind = "idle" if kind == "idle" else "echo"
        echoRoles = roles if kind == "idle" else ("a", "b")
        servers.append(("baseline", startEchoServer, echoKind, echoRoles))
    if not args.no_hub:
        servers.append(("hub", startHubServer, kind, roles))
    try:
        from twisted.internet import reactor
        from twisted.internet.defer import ensureDeferred
        from twisted.internet.task import deferLater

        async def runAll():
            keys = {}
            if namesDB is not None:
                began = now()
                keys = await registerAccounts(reactor, namesDB, count)
                results["accounts_registered"] = len(keys)
                results["accounts_seconds"] = round(now() - began, 1)
            for r in range(args.rounds):
                figures = {}
                results["rounds"].append(figures)
                order = servers if r % 2 == 0 else servers[::-1]
                for name, start, kind_, roles_ in order:
                    port, pid, proc = start()
                    tableKeys = None
                    if namesDB is not None:
                        tableKeys = keys if name == "accounts" else {}
                    bench = Bench(reactor, port, args.mode, interval,
                                  args.warmup, args.seconds,
                                  tag="%d_%d_" % (os.getpid(), r),
                                  keys=tableKeys)
                    try:
                        figures[name] = await bench.run(
                            count, kind_, roles_, pid)
                    finally:
                        bench.close()
                    # Let the closes reach the server, then stop it.
                    await deferLater(reactor, 1.0, lambda: None)
                    if proc is not None:
                        stopProcess(proc)
                if "baseline" in figures and "hub" in figures \
                        and kind != "idle" \
                        and figures["baseline"]["per_second"]:
                    figures["hub_over_baseline"] = round(
                        figures["hub"]["per_second"]
                        / figures["baseline"]["per_second"], 3)
                if "open" in figures and "accounts" in figures \
                        and figures["open"]["per_second"]:
                    figures["accounts_over_open"] = round(
                        figures["accounts"]["per_second"]
                        / figures["open"]["per_second"], 3)
                    # On a busy machine the moves/s follow the others'
                    # load; the server's CPU per move does much less.
                    figures["accounts_cpu_over_open"] = round(
                        figures["accounts"]["server_cpu_us_per_op"]
                        / figures["open"]["server_cpu_us_per_op"], 3)

        failures = []

        def done(result):
            if timer.active():
                timer.cancel()
            if hasattr(result, "printTraceback"):
                failures.append(result)
                result.printTraceback()
            reactor.stop()

        def overtime():
            print("gave up: the run took longer than %ds" % (limit,),
                  file=sys.stderr)
            failures.append("timeout")
            reactor.stop()

        limit = args.rounds * len(servers) * (
            args.setup_timeout + args.warmup + args.seconds + 5) + (
            args.setup_timeout if namesDB is not None else 0)
        timer = reactor.callLater(limit, overtime)
        reactor.callWhenRunning(
            lambda: ensureDeferred(runAll()).addBoth(done))
        reactor.run()
        if failures:
            return 1
    finally:
        for proc in procs:
            stopProcess(proc)
        if namesDB is not None:
            shutil.rmtree(os.path.dirname(namesDB[len("sqlite:"):]), True)

    ratios = sorted(f["hub_over_baseline"] for f in results["rounds"]
                    if "hub_over_baseline" in f)
    if ratios:
        results["median_hub_over_baseline"] = statistics.median(ratios)
    for key in ("accounts_over_open", "accounts_cpu_over_open"):
        ratios = sorted(f[key] for f in results["rounds"] if key in f)
        if ratios:
            results["median_" + key] = statistics.median(ratios)
    if args.json:
        print(json.dumps(results, sort_keys=True))
    else:
        report(results)
    return 0


def report(results):
    """
    Print the figures for humans.
    """
    idle = results["mode"] == "idle"
    print("mode %(mode)s, %(count)d %(what)s, window %(seconds)ss after "
          "%(warmup)ss warm-up, %(cpus)s CPUs%(pin)s" % dict(
              results, what="connections" if idle else "games",
              pin=" (server on CPU %d, load generator on CPU %d)"
              % tuple(results["pinned"]) if results["pinned"] else ""))
    if results["echo_immediate"]:
        print("baseline: the echo writes through ImmediateWriter")
    if results["echo_second_send"]:
        print("baseline: the echo sends each frame a second time, to a sink")
    for i, figures in enumerate(results["rounds"]):
        if len(results["rounds"]) > 1:
            print(" round %d" % (i + 1,))
        for name in ("baseline", "hub", "open", "accounts"):
            r = figures.get(name)
            if r is None:
                continue
            if idle:
                print("  %-8s %6d conns (set up in %ss): RSS %d -> %d KiB,"
                      " %.2f KiB per connection, errors %d" % (
                          name, r["connections"], r["setup_seconds"],
                          r["rss_before_kib"], r["rss_after_kib"],
                          r["kib_per_connection"], r["errors"]))
                continue
            unit = "round trips/s" if name == "baseline" else "moves/s"
            print("  %-8s %9.1f %-13s p50 %s ms  p99 %s ms  max %s ms"
                  % (name, r["per_second"], unit, r["p50_ms"],
                     r["p99_ms"], r["max_ms"]))
            print("  %-8s CPU: server %d%% (%s us/op), client %d%% (%s us/op),"
                  " others %d%%;" % (
                      "", r["server_cpu_pct"], r["server_cpu_us_per_op"],
                      r["client_cpu_pct"], r["client_cpu_us_per_op"],
                      r["other_cpu_pct"]))
            print("  %-8s server RSS %d KiB;  games %d;  errors %d" % (
                "", r["server_rss_kib"], r["games_finished"],
                r["errors"]))
        if "hub_over_baseline" in figures:
            print("  hub / baseline: %.3f" % (figures["hub_over_baseline"],))
        if "accounts_over_open" in figures:
            print("  accounts (keyed) / open: %.3f moves/s, %.3f server "
                  "CPU per move" % (figures["accounts_over_open"],
                                    figures["accounts_cpu_over_open"]))
    if "accounts_registered" in results:
        print(" %d accounts registered first in %ss (%s)" % (
            results["accounts_registered"], results["accounts_seconds"],
            results["names_db"]))
    if "median_accounts_over_open" in results:
        print(" median accounts (keyed) / open: %.3f moves/s, %.3f server "
              "CPU per move" % (results["median_accounts_over_open"],
                                results["median_accounts_cpu_over_open"]))
    if "median_hub_over_baseline" in results:
        print(" median hub / baseline: %.3f"
              % (results["median_hub_over_baseline"],))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
