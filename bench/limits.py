"""
The hub's limits under abuse, against the real C{twistd -n gamehub}
(gomoku only, on loopback).

Modes:
  - C{rss}: C{--clients} gomoku clients register and each asks for the
    room list (C{--rooms} rooms open) C{--requests} times in one write,
    and never reads: each is owed megabytes.  Report the hub's peak and
    final RSS and how many clients the send buffer bound cut (target:
    peak under 100 MB + clients x the bound).  C{--max-send-buffer 0}
    shows the hub without the bound.
  - C{connects}: C{--clients} sockets connect at once and each sends a
    registration; report when the last reply arrived (target: all
    5,000 within 10 s).  C{--backlog} overrides the listen backlog.
  - C{halfframe}: C{--clients} connections each hold a frame just under
    the 64 KB limit, unfinished; report the hub's RSS per connection
    over the same number of idle ones.

Examples::

    python bench/limits.py rss --clients 1000
    python bench/limits.py connects --clients 5000
    python bench/limits.py halfframe --clients 500

Not a test: it prints figures.  Every wait is bounded.
"""

import argparse
import os
import re
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from hub.wire import gomoku as wire  # noqa: E402

TIMEOUT = 120.0


def raiseFileLimit(wanted):
    """
    Raise this process's (and so the hub's) open file limit to C{wanted}
    if the hard limit allows.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(
            wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class Hub:
    """
    A C{twistd -n gamehub} serving gomoku and metrics on free loopback
    ports, its log in a temporary file.
    """

    def __init__(self, *extra, gomokuPort="tcp:0:interface=127.0.0.1"):
        self.workdir = tempfile.mkdtemp(prefix="gamehub-bench-")
        self.logPath = os.path.join(self.workdir, "twistd.log")
        twistd = os.path.join(os.path.dirname(sys.executable), "twistd")
        args = [twistd, "-n", "--pidfile=", "--logfile=" + self.logPath,
                "gamehub", "--gomoku-port", gomokuPort,
                "--checkers-port", "none", "--splendor-port", "none",
                "--metrics-port", "tcp:0:interface=127.0.0.1"]
        args.extend(extra)
        self.command = " ".join(args[args.index("gamehub"):])
        self.process = subprocess.Popen(args, cwd=self.workdir,
                                        stdin=subprocess.DEVNULL)
        self.port = self.waitForLog(r"GomokuFactory starting on (\d+)")
        self.metricsPort = self.waitForLog(
            r"MetricsSite starting on (\d+)")

    def waitForLog(self, pattern):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("gamehub exited: " + self.log())
            match = re.search(pattern, self.log())
            if match:
                return int(match.group(1))
            time.sleep(0.05)
        raise RuntimeError("gamehub never logged " + pattern)

    def log(self):
        try:
            with open(self.logPath) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def memory(self):
        """
        The hub's current and peak resident set sizes, in MB.
        """
        with open("/proc/{}/status".format(self.process.pid)) as f:
            status = dict(line.split(":", 1) for line in f)
        return (int(status["VmRSS"].split()[0]) / 1024,
                int(status["VmHWM"].split()[0]) / 1024)

    def metric(self, name):
        """
        The sum of a metric's samples on C{/metrics}.
        """
        url = "http://127.0.0.1:{}/metrics".format(self.metricsPort)
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            text = response.read().decode()
        return sum(float(line.split()[-1]) for line in text.splitlines()
                   if line.startswith(name))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def frame(message):
    return wire.encodeMessage(message)


def connectAll(port, count):
    """
    C{count} blocking sockets connected to the hub, in turn.
    """
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sockets.append(s)
    return sockets


def readReply(s):
    """
    Read until one whole gomoku frame arrived.
    """
    data = b""
    while b">" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise RuntimeError("closed")
        data += chunk
    return data


def register(sockets, prefix):
    for s in sockets:
        s.sendall(frame(wire.regMessage("{}{}".format(prefix, id(s)), 1)))
    for s in sockets:
        readReply(s)


def benchRss(args):
    extra = ["--max-connections-per-ip", "0", "--max-connections", "0"]
    if args.max_send_buffer is not None:
        extra += ["--max-send-buffer", str(args.max_send_buffer)]
    raiseFileLimit(args.clients + args.rooms + 1000)
    hub = Hub(*extra)
    try:
        holders = connectAll(hub.port, args.rooms)
        register(holders, "holder")
        for n, s in enumerate(holders):
            s.sendall(frame(wire.roomOpMessage(
                wire.RO_ROOM_CREATE, "room-{:04d}-{}".format(n, "x" * 20),
                "", 2)))
            readReply(s)
        victims = connectAll(hub.port, args.clients)
        register(victims, "v")
        baseline = hub.memory()[0]
        request = frame(wire.requestMessage(wire.REQ_ROOM_LIST, 2))
        started = time.monotonic()
        for s in victims:
            s.sendall(request * args.requests)
        # Wait until the hub has dealt with every request: every client
        # is cut, or the hub's memory has not grown for 5 s.
        deadline = time.monotonic() + TIMEOUT
        cut, last, steady = 0, None, 0
        while time.monotonic() < deadline:
            cut = hub.metric('gamehub_limited_connections_total{limit='
                             '"max-send-buffer"}')
            if cut >= args.clients:
                break
            rss = hub.memory()[0]
            steady = steady + 1 if rss == last else 0
            if steady >= 10:
                break
            last = rss
            time.sleep(0.5)
        elapsed = time.monotonic() - started
        rss, peak = hub.memory()
        bound = args.max_send_buffer
        if bound is None:
            bound = 256 * 1024
        print("command: twistd -n --pidfile= " + hub.command)
        print("clients: {}, rooms: {}, room-list requests each: {}".format(
            args.clients, args.rooms, args.requests))
        print("hub RSS before: {:.1f} MB; after: {:.1f} MB; peak: {:.1f} MB"
              .format(baseline, rss, peak))
        if bound:
            print("target: peak < 100 MB + {} x {} B = {:.0f} MB".format(
                args.clients, bound, 100 + args.clients * bound / 2 ** 20))
        print("clients cut by --max-send-buffer: {:.0f} in {:.1f} s".format(
            cut, elapsed))
        for s in holders + victims:
            s.close()
    finally:
        hub.stop()


def benchConnects(args):
    raiseFileLimit(args.clients + 1000)
    gomokuPort = "tcp:0:interface=127.0.0.1"
    if args.backlog:
        gomokuPort += ":backlog={}".format(args.backlog)
    hub = Hub("--max-connections-per-ip", "0", gomokuPort=gomokuPort)
    try:
        selector = selectors.DefaultSelector()
        pending = {}
        started = time.monotonic()
        for n in range(args.clients):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", hub.port))
            pending[s] = frame(wire.regMessage("c{}".format(n), 1))
            selector.register(s, selectors.EVENT_WRITE)
        answered, failed, last = 0, 0, None
        deadline = started + TIMEOUT
        while answered + failed < args.clients and \
                time.monotonic() < deadline:
            for key, events in selector.select(1.0):
                s = key.fileobj
                if events & selectors.EVENT_WRITE:
                    try:
                        s.send(pending[s])
                    except OSError:
                        failed += 1
                        selector.unregister(s)
                        s.close()
                        continue
                    selector.modify(s, selectors.EVENT_READ)
                    continue
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if b">" in data:
                    answered += 1
                    last = time.monotonic() - started
                else:
                    failed += 1
                selector.unregister(s)
                s.close()
        print("command: twistd -n --pidfile= " + hub.command)
        print("clients: {}; answered: {}; failed: {}; last answer after "
              "{:.2f} s".format(args.clients, answered, failed,
                                last if last is not None else -1))
        for key in list(selector.get_map().values()):
            key.fileobj.close()
    finally:
        hub.stop()


def benchHalfFrame(args):
    raiseFileLimit(2 * args.clients + 1000)
    hub = Hub("--max-connections-per-ip", "0")
    try:
        idle = connectAll(hub.port, args.clients)
        time.sleep(1)
        before = hub.memory()[0]
        holding = connectAll(hub.port, args.clients)
        time.sleep(1)
        withIdle = hub.memory()[0]
        partial = b'<{"msg_type":3,"name":"' + b"x" * (65536 - 40)
        for s in holding:
            s.sendall(partial)
        time.sleep(2)
        after = hub.memory()[0]
        print("command: twistd -n --pidfile= " + hub.command)
        print("{} idle connections: {:.1f} KB each".format(
            args.clients, (withIdle - before) * 1024 / args.clients))
        print("{} connections holding a {} B half frame: {:.1f} KB each "
              "more".format(args.clients, len(partial) - 1,
                            (after - withIdle) * 1024 / args.clients))
        for s in idle + holding:
            s.close()
    finally:
        hub.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("mode", choices=("rss", "connects", "halfframe"))
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--requests", type=int, default=150)
    parser.add_argument("--max-send-buffer", type=int, default=None)
    parser.add_argument("--backlog", type=int, default=None)
    args = parser.parse_args()
    {"rss": benchRss, "connects": benchConnects,
     "halfframe": benchHalfFrame}[args.mode](args)


if __name__ == "__main__":
    main()
