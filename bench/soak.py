"""
A soak: C{twistd -n gamehub} at its defaults (every port, records in a
fresh SQLite file) for C{--minutes} of mixed play with the hostile
clients of issue 33 running, sampling the hub's RSS.

Players: C{--games} paced gomoku games over TCP (C{bench/gomoku_load.py},
the canary, whose p50/p99 over the whole run are reported), checkers and
Splendor bot teams over their protocols (C{python -m hub.bots}, level 1),
browser players over C{/ws} playing gomoku against room bots (level 1,
the hub's worker pool), spectators on live games' event streams, and a
poller of C{/api/hub}.  Hostile, each from its own loopback address: a
message that never ends (empty continuations), a ping flood, four
clients asking for the stored games' replays as fast as they are
answered, and a WebSocket fuzzer (random, mutated and fragmented
frames: C{tests/web/test_ws.py}'s).  Each connects again when cut.

Reports the RSS at 2 minutes and at the end (target: at most 5 MB
between), every sample, and what each client did.  C{--trace} runs the
hub under C{tracemalloc} and has it dump a snapshot (and its live
objects' counts by type) at 2 minutes and at the end, then prints what
grew between, by traceback: how the growth was found.

    python bench/soak.py --minutes 15
    python bench/soak.py --minutes 15 --trace

Not a test: it prints figures.
"""

import argparse
import collections
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import gomoku_load  # noqa: E402
import web_hostile  # noqa: E402
from tests.web import test_ws  # noqa: E402

#: Seconds after which the RSS is the baseline of the growth.
BASELINE_SECONDS = 120

#: What the hub runs first under C{--trace} (its C{sitecustomize}).
TRACER = textwrap.dedent('''
    import collections, gc, json, os, signal, tracemalloc
    tracemalloc.start(int(os.environ.get("SOAK_FRAMES", "16")))
    _dumps = [0]
    def _dump(signum, frame):
        _dumps[0] += 1
        base = "%s.%d" % (os.environ["SOAK_TRACE"], _dumps[0])
        gc.collect()
        tracemalloc.take_snapshot().dump(base + ".snap")
        counts = collections.Counter(
            type(o).__module__ + "." + type(o).__qualname__
            for o in gc.get_objects())
        with open(base + ".types", "w") as f:
            json.dump(counts.most_common(400), f)
    signal.signal(signal.SIGUSR2, _dump)
''')


def startHub(workdir, trace, tree=None):
    """
    The hub on free loopback ports at its defaults, its records in
    C{workdir}: C{(process, {kind: port})}.  With C{tree}, the hub is the
    code of that source tree (another checkout, to compare).
    """
    ports = {kind: gomoku_load.freePort()
             for kind in ("gomoku", "checkers", "splendor", "web")}
    twistd = os.path.join(os.path.dirname(sys.executable), "twistd")
    command = [twistd, "-n", "--pidfile=", "--logfile=" + os.path.join(
        workdir, "hub.log"), "gamehub", "--announce", "no"]
    for kind, port in ports.items():
        command += ["--%s-port" % (kind,),
                    "tcp:%d:interface=127.0.0.1" % (port,)]
    env = dict(os.environ)
    paths = [tree] if tree else []
    if trace:
        folder = os.path.join(workdir, "tracer")
        os.mkdir(folder)
        with open(os.path.join(folder, "sitecustomize.py"), "w") as f:
            f.write(TRACER)
        paths.insert(0, folder)
        env["SOAK_TRACE"] = os.path.join(workdir, "trace")
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    proc = subprocess.Popen(command, cwd=workdir, env=env,
                            stdin=subprocess.DEVNULL)
    for port in ports.values():
        gomoku_load.waitForPort(port, proc, timeout=60)
    return proc, ports


class WebSocket:
    """
    A blocking WebSocket client from C{source}: text messages in and out.
    """

    def __init__(self, port, source):
        self.sock = socket.create_connection(
            ("127.0.0.1", port), timeout=30, source_address=(source, 0))
        self.sock.sendall(
            b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
            b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n" % (port,))
        data = b""
        while b"\r\n\r\n" not in data:
            more = self.sock.recv(65536)
            if not more:
                raise OSError("closed before the upgrade")
            data += more
        head, self.buffer = data.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise OSError(head.split(b"\r\n")[0].decode("latin-1"))

    def send(self, message):
        self.sock.sendall(test_ws.clientFrame(json.dumps(message)))

    def receive(self):
        """
        The next text message, as a dict (OSError once closed).
        """
        while True:
            data = self.buffer
            if len(data) >= 2:
                opcode, length = data[0] & 0x0F, data[1] & 0x7F
                offset = 2
                if length == 126:
                    length, offset = struct.unpack("!H", data[2:4])[0], 4
                elif length == 127:
                    length, offset = struct.unpack("!Q", data[2:10])[0], 10
                if len(data) >= offset + length:
                    payload = data[offset:offset + length]
                    self.buffer = data[offset + length:]
                    if opcode == 8:
                        raise OSError("closed")
                    if opcode == 1:
                        return json.loads(payload)
                    continue
            more = self.sock.recv(65536)
            if not more:
                raise OSError("closed")
            self.buffer += more

    def close(self):
        self.sock.close()


class Client(threading.Thread):
    """
    A client of the soak in a thread: C{once()} again and again until
    stopped, counting what happened.
    """

    def __init__(self, name, port, source):
        threading.Thread.__init__(self, daemon=True, name=name)
        self.port = port
        self.source = source
        self.running = True
        self.counts = collections.Counter()

    def run(self):
        while self.running:
            try:
                self.once()
            except (OSError, ValueError, KeyError) as e:
                self.counts[type(e).__name__] += 1
                time.sleep(0.05)

    def stop(self):
        self.running = False


class BrowserPlayer(Client):
    """
    A browser's gomoku over C{/ws} against a level-1 room bot, games one
    after the other, a move about every C{think} seconds.
    """

    think = 0.3

    def once(self):
        rng = random.Random()
        ws = WebSocket(self.port, self.source)
        try:
            name = "w%s%d" % (self.name[-2:], rng.randrange(10 ** 6))
            ws.send({"type": "hello", "version": 1, "name": name})
            while self.running:
                self.game(ws, name, rng)
        finally:
            ws.close()

    def game(self, ws, name, rng):
        room = "%s-%d" % (name, rng.randrange(10 ** 6))
        ws.send({"type": "create", "kind": "gomoku", "room": room,
                 "seat": 0, "bots": True, "level": 1})
        # A room with a bot starts its game at once ("play a bot").
        mine = None
        board = set()
        while self.running:
            message = ws.receive()
            kind, event = message["type"], message.get("event")
            if kind == "event" and event == "GameStarted":
                self.counts["games"] += 1
                mine = message["you"]
                if mine == 0:
                    self.move(ws, board, rng)
            elif kind == "event" and event == "ActionPlayed" and \
                    mine is not None:
                board.add(tuple(message["action"]))
                if message.get("next") == mine:
                    self.move(ws, board, rng)
            elif kind == "event" and event == "GameEnded":
                self.counts["ended"] += 1
                ws.send({"type": "leave"})
                return
            elif kind == "error":
                self.counts["error " + message["code"]] += 1
                if message["request"] == "create":
                    ws.send({"type": "leave"})
                    return

    def move(self, ws, board, rng):
        time.sleep(self.think * rng.random() * 2)
        free = [(x, y) for x in range(15) for y in range(15)
                if (x, y) not in board]
        ws.send({"type": "act", "action": list(rng.choice(free))})
        self.counts["moves"] += 1


class Fuzzer(Client):
    """
    Random, mutated and fragmented frames on C{/ws}
    (L{test_ws.fuzzedFrames}), a few hundred a second.
    """

    def once(self):
        rng = random.Random()
        ws = WebSocket(self.port, self.source)
        texts = [json.dumps(m).encode("utf-8") for m in test_ws.MESSAGES]
        try:
            while self.running:
                payload = rng.choice(texts)
                if rng.random() < 0.4:
                    payload = test_ws.mutate(rng, payload.decode("utf-8"))
                ws.sock.settimeout(5)
                ws.sock.sendall(b"".join(test_ws.fuzzedFrames(rng,
                                                              payload)))
                self.counts["items"] += 1
                # Read what came, without waiting for more.
                ws.sock.settimeout(0)
                try:
                    while True:
                        if not ws.sock.recv(65536):
                            return
                except BlockingIOError:
                    pass
                time.sleep(0.003)
        finally:
            ws.close()


class Spectator(Client):
    """
    Follows the stream of a live game until it ends, then another.
    """

    def once(self):
        games = httpJSON(self.port, "/api/games")["games"]
        live = [g["id"] for g in games if not g["over"]]
        if not live:
            time.sleep(1)
            return
        sock = socket.create_connection(
            ("127.0.0.1", self.port), timeout=60,
            source_address=(self.source, 0))
        try:
            sock.sendall(b"GET /api/games/%s/events HTTP/1.0\r\n"
                         b"Host: hub\r\n\r\n" % (
                             random.choice(live).encode("ascii"),))
            while self.running:
                data = sock.recv(65536)
                if not data:
                    break
                self.counts["bytes"] += len(data)
            self.counts["streams"] += 1
        finally:
            sock.close()


class Poller(Client):
    """
    Asks for C{paths()} again and again, as fast as answered (each on a
    new connection), counting the answers by status.
    """

    def __init__(self, name, port, source, paths, pause=0.0):
        Client.__init__(self, name, port, source)
        self.paths = paths
        self.pause = pause

    def once(self):
        status, body = httpGet(self.port, self.paths(), self.source)
        self.counts[status] += 1
        self.counts["bytes"] += len(body)
        if self.pause:
            time.sleep(self.pause)


class Flooder(Client):
    """
    One of C{bench/web_hostile.py}'s floods from C{source}, connecting
    again when cut (after a moment when refused).
    """

    def __init__(self, name, port, source, scenario):
        Client.__init__(self, name, port, source)
        self.opening, self.chunk = web_hostile.floodBytes(scenario)

    def once(self):
        try:
            ws = WebSocket(self.port, self.source)
        except OSError:
            self.counts["refused"] += 1
            time.sleep(0.02)
            return
        ws.sock.settimeout(1)
        try:
            ws.sock.sendall(self.opening)
            while self.running:
                ws.sock.sendall(self.chunk)
                self.counts["chunks"] += 1
        except OSError:
            self.counts["cut"] += 1
        finally:
            ws.close()


def httpGet(port, path, source="127.0.0.1"):
    """
    GET C{path} on its own connection: C{(status, body)}.
    """
    sock = socket.create_connection(("127.0.0.1", port), timeout=60,
                                    source_address=(source, 0))
    try:
        sock.sendall(b"GET %s HTTP/1.0\r\nHost: hub\r\n\r\n" % (
            path.encode("ascii"),))
        data = b""
        while True:
            more = sock.recv(1 << 20)
            if not more:
                break
            data += more
    finally:
        sock.close()
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/"):
        # Closed unanswered: refused before a protocol.
        return "closed", b""
    return int(head.split()[1]), body


def httpJSON(port, path):
    status, body = httpGet(port, path)
    return json.loads(body)


def botTeam(kind, port, count, name):
    """
    A team of level-1 bots playing games of C{kind} one after the other.
    """
    return subprocess.Popen(
        [sys.executable, "-m", "hub.bots", "%s://127.0.0.1:%d" % (kind, port),
         "--count", str(count), "--level", "1", "--games", "100000",
         "--delay", "0.2", "--name", name, "--room", name],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


def mappings(pid):
    """
    The resident KiB of each of process C{pid}'s mappings, from
    C{/proc/PID/smaps}: C{{(start, name): (size KiB, rss KiB)}}.  An
    anonymous mapping's size and place tell the C heap's thread arenas
    (64 MiB reserved, aligned to it) from the rest (the kernel merges
    pymalloc's adjacent 1 MiB arenas and large blocks into one mapping).
    """
    found = {}
    with open("/proc/%d/smaps" % (pid,)) as f:
        key = None
        for line in f:
            head = line.split()
            if "-" in head[0] and not head[0].endswith(":"):
                start, end = (int(x, 16) for x in head[0].split("-"))
                name = head[5] if len(head) > 5 else ""
                key = (start, name)
                size = (end - start) // 1024
            elif head[0] == "Rss:":
                found[key] = (size, int(head[1]))
    return found


def kindOf(key):
    """
    What a mapping of L{mappings} is: the C heap's main arena, its thread
    arenas, another anonymous mapping, or a file's.
    """
    start, name = key
    if name == "[heap]":
        return "[heap] (the C heap's main arena)"
    if name:
        return "files and other named mappings"
    if start % (64 << 20) == 0:
        return "anonymous at 64 MiB bounds (the C heap's thread arenas)"
    return "anonymous, other (pymalloc's arenas, large blocks, stacks)"


def mappingGrowth(before, after):
    """
    The RSS growth between two L{mappings} readings, by kind and for
    the mappings that grew most.
    """
    rss = lambda reading, key: reading.get(key, (0, 0))[1]
    byKind = collections.Counter()
    for key in set(before) | set(after):
        byKind[kindOf(key)] += rss(after, key) - rss(before, key)
    lines = ["RSS growth by mapping kind (KiB):"]
    lines.extend("  %+d %s" % (n, kind) for kind, n in byKind.most_common())
    grown = sorted(((rss(after, k) - rss(before, k), k)
                    for k in set(before) | set(after)), reverse=True)[:10]
    lines.append("mappings that grew most (KiB; start, name, size KiB):")
    lines.extend("  %+d %#x %s %d" % (
        n, k[0], k[1] or "anon", after.get(k, before.get(k))[0])
        for n, k in grown if n)
    return "\n".join(lines)


def growth(workdir):
    """
    What grew between the hub's two tracemalloc snapshots: the top
    tracebacks, and the live objects' counts by type.
    """
    base = os.path.join(workdir, "trace")
    first = tracemalloc.Snapshot.load(base + ".1.snap")
    last = tracemalloc.Snapshot.load(base + ".2.snap")
    lines = []
    for stat in last.compare_to(first, "traceback")[:12]:
        lines.append("%+.1f KiB in %+d blocks:" % (
            stat.size_diff / 1024, stat.count_diff))
        lines.extend("    " + line for line in stat.traceback.format()[-12:])
    with open(base + ".1.types") as f:
        before = dict(json.load(f))
    with open(base + ".2.types") as f:
        after = dict(json.load(f))
    grown = sorted(((after[k] - before.get(k, 0), k) for k in after),
                   reverse=True)[:25]
    lines.append("objects grown, by type:")
    lines.extend("  %+d %s" % (n, k) for n, k in grown if n > 0)
    return "\n".join(lines)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=15)
    p.add_argument("--games", type=int, default=40,
                   help="paced gomoku games of the canary")
    p.add_argument("--browsers", type=int, default=6)
    p.add_argument("--trace", action="store_true",
                   help="the hub under tracemalloc: what grew")
    p.add_argument("--tree", default=None,
                   help="run the hub from this source tree (to compare "
                        "with another checkout)")
    args = p.parse_args(argv)
    gomoku_load.raiseFileLimit(4096)
    workdir = tempfile.mkdtemp(prefix="soak-")
    seconds = args.minutes * 60
    proc, ports = startHub(workdir, args.trace, args.tree)
    web = ports["web"]
    started = time.monotonic()
    children = [
        subprocess.Popen(
            [sys.executable, os.path.join(HERE, "gomoku_load.py"),
             "--mode", "paced", "--games", str(args.games), "--seconds",
             str(seconds - 20), "--warmup", "10", "--port",
             str(ports["gomoku"]), "--server-pid", str(proc.pid),
             "--no-baseline", "--json", "--no-pin"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL),
        botTeam("checkers", ports["checkers"], 3, "soakc"),
        botTeam("splendor", ports["splendor"], 4, "soaks"),
    ]
    address = iter("127.0.0.%d" % (n,) for n in range(2, 250))
    clients = [BrowserPlayer("browser%02d" % (n,), web, next(address))
               for n in range(args.browsers)]
    clients += [Spectator("spectator%d" % (n,), web, next(address))
                for n in range(4)]
    clients.append(Poller("lobby", web, next(address),
                          lambda: "/api/hub", 0.2))
    clients += [Flooder("continuations", web, next(address),
                        "continuations"),
                Flooder("pings", web, next(address), "pings"),
                Fuzzer("fuzzer", web, next(address))]
    stored = lambda: "/api/games/%d" % (random.randint(1, 300),)
    clients += [Poller("replays%d" % (n,), web, next(address), stored)
                for n in range(4)]
    for client in clients:
        client.start()
    samples = []
    dumped = False
    mapped = None
    try:
        while time.monotonic() - started < seconds:
            time.sleep(10)
            at = time.monotonic() - started
            samples.append((round(at), gomoku_load.rssKiB(proc.pid)))
            if mapped is None and at >= BASELINE_SECONDS:
                mapped = mappings(proc.pid)
            lastMapped = mappings(proc.pid)
            if args.trace and not dumped and at >= BASELINE_SECONDS:
                proc.send_signal(signal.SIGUSR2)
                dumped = True
        if args.trace:
            proc.send_signal(signal.SIGUSR2)
            time.sleep(20)
    finally:
        for client in clients:
            client.stop()
        canary = children[0].communicate(timeout=120)[0]
        for child in children[1:]:
            child.terminate()
            child.wait()
        gomoku_load.stopProcess(proc)
    baseline = [rss for at, rss in samples if at >= BASELINE_SECONDS][0]
    print("soak: %.0f minutes, RSS KiB at %ds %d, at the end %d: %+.1f MB "
          "after the first %d s" % (
              args.minutes, BASELINE_SECONDS, baseline, samples[-1][1],
              (samples[-1][1] - baseline) / 1024, BASELINE_SECONDS))
    print(" samples (s, KiB): %s" % (samples,))
    try:
        hub = json.loads(canary.decode().strip().splitlines()[-1])[
            "rounds"][0]["hub"]
        print(" canary: p50 %s ms, p99 %s ms" % (hub["p50_ms"],
                                                   hub["p99_ms"]))
    except (ValueError, IndexError, KeyError):
        print(" canary: no figures")
    for client in clients:
        print(" %s: %s" % (client.name, dict(client.counts)))
    print(mappingGrowth(mapped, lastMapped))
    print(" hub log: %s" % (web_hostile.logLines(os.path.join(
        workdir, "hub.log")),))
    if args.trace:
        print(growth(workdir))
    print(" (files in %s)" % (workdir,))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
