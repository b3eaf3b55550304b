"""
The wheel smoke test of C{.ci/run}: gamehub as an operator installs it,
from its wheel, not editable, into a fresh virtualenv, and run from a
folder outside the source tree (C{.ci/run} copies this file there, so
that the tree is not on C{sys.path}).

    python smoke.py WHEEL redis://127.0.0.1:PORT/0

The hub runs in this file's folder (its records, its pid file), which
should be a temporary one.

It takes the bare install (no extras) and checks, in order:
  1. gamehub is imported from the virtualenv, and C{twistd -n gamehub
     --version} tells the wheel's version;
  2. C{--cluster} without the cluster extra is one line naming it;
  3. C{twistd -n gamehub} starts with its defaults (tcp:11011, 16666,
     13204 and the web face on 8080; SQLite records in the folder; the
     LAN announcement);
  4. the web face serves C{/}, its JavaScript (and the modules that
     imports) and its CSS;
  5. bots play one game of each kind (C{python -m hub.bots});
  6. C{python -m hub.records leaderboard gomoku} answers, listing the
     gomoku bots (with C{--leaderboard-guests yes}: bots play as guests);
  7. two engines registered with C{python -m hub.tournaments engine add}
     (the bot client) play an event in the engine sandbox (bwrap: the
     installed hub's Python inside), each leaving by itself;
  8. the hub stops cleanly on SIGTERM ("Server Shut Down", no
     traceback; see L{checkStopped} for the exit status);
  9. with the cluster extra installed (C{WHEEL[cluster]}), a node with
     C{--cluster} (other ports) starts, registers in Redis, and stops
     cleanly.
It prints each step and its own duration; any failure exits 1 with the
hub's log.  The standard library only.
"""

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

TIMEOUT = 60.0
BOT_TIMEOUT = 300
PORTS = {"gomoku": 11011, "checkers": 16666, "splendor": 13204}
WEB_PORT = 8080
EXTRA_MODULES = ("psycopg", "txredisapi", "pyglet")
BIN = os.path.dirname(sys.executable)


class SmokeFailure(Exception):
    """
    A step of the smoke test failed.
    """


def step(text):
    print("smoke: " + text, flush=True)


def check(condition, message, *logs):
    if not condition:
        raise SmokeFailure(message + "".join(
            "\n--- {} ---\n{}".format(name, text) for name, text in logs))


def run(args, timeout=TIMEOUT, **kwargs):
    """
    Run C{args}; its exit status and output (stdout and stderr).
    """
    done = subprocess.run(args, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=timeout,
                          **kwargs)
    return done.returncode, done.stdout.decode("utf-8", "replace")


class Twistd:
    """
    C{twistd -n ARGS} in C{cwd}, its output read as it comes.
    """

    def __init__(self, args, cwd, name):
        self.name = name
        self.lines = []
        self.changed = threading.Condition()
        self.process = subprocess.Popen(
            [os.path.join(BIN, "twistd"), "-n"] + args, cwd=cwd,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line.decode("utf-8", "replace"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def log(self):
        with self.changed:
            return "".join(self.lines)

    def waitFor(self, pattern, timeout=TIMEOUT):
        """
        The first match of C{pattern} in the log, waiting for it.
        """
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                match = regex.search("".join(self.lines))
                if match:
                    return match
                left = deadline - time.monotonic()
                check(left > 0 and self.process.poll() is None,
                      "{}: no {!r} in its log".format(self.name, pattern),
                      (self.name, "".join(self.lines)))
                self.changed.wait(min(left, 0.5))

    def terminate(self):
        """
        SIGTERM, then the exit status.
        """
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            status = "killed after {} s".format(TIMEOUT)
        self.reader.join(TIMEOUT)
        return status

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def checkInstalled():
    """
    gamehub comes from this virtualenv, without extras, and C{--version}
    tells the wheel's version.
    """
    import importlib.util
    from importlib.metadata import version
    import hub
    here = os.path.realpath(hub.__file__)
    check(here.startswith(os.path.realpath(sys.prefix) + os.sep),
          "hub is imported from {}, not from {}".format(here, sys.prefix))
    for name in EXTRA_MODULES:
        check(importlib.util.find_spec(name) is None,
              "{} is installed: this is not the bare install".format(name))
    status, out = run([os.path.join(BIN, "twistd"), "-n", "gamehub",
                       "--version"])
    expected = "gamehub version: " + version("gamehub")
    check(status == 0 and out.splitlines()[0] == expected,
          "--version: {!r}, not {!r}".format(out, expected))
    check(hub.__version__ == version("gamehub"), "hub.__version__")
    step("{} from {}".format(expected, os.path.dirname(here)))


def checkMissingExtra(redisURL, cwd):
    status, out = run([os.path.join(BIN, "twistd"), "-n", "--pidfile=",
                       "gamehub", "--db", "none", "--announce", "no",
                       "--cluster", redisURL], cwd=cwd)
    expected = "gamehub: --cluster needs: pip install 'gamehub[cluster]'"
    check(status != 0 and out.splitlines() == [expected],
          "--cluster without its extra: status {}".format(status),
          ("output", out))
    step("bare install: " + expected)


def get(path, port=WEB_PORT):
    url = "http://127.0.0.1:{}{}".format(port, path)
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
        return (response.status, response.headers.get_content_type(),
                response.read().decode("utf-8"))


def checkWeb():
    """
    C{/}, every script it names and the modules those import, and the
    stylesheet.
    """
    status, kind, page = get("/")
    check(status == 200 and kind == "text/html", "/: {} {}".format(
        status, kind))
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', page)
    styles = re.findall(r'<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"',
                        page)
    check(scripts and styles, "/ names no script or stylesheet",
          ("/", page))
    fetched, queue = set(), list(scripts)
    while queue:
        path = queue.pop()
        if path in fetched:
            continue
        fetched.add(path)
        status, kind, body = get(path)
        check(status == 200 and "javascript" in kind and body,
              "{}: {} {}".format(path, status, kind))
        for imported in re.findall(r'import\b[^"\']*["\']([^"\']+)["\']',
                                   body):
            queue.append(urllib.parse.urljoin(path, imported))
    for path in styles:
        status, kind, body = get(path)
        check(status == 200 and kind == "text/css" and body,
              "{}: {} {}".format(path, status, kind))
    step("web face: / and {}".format(", ".join(sorted(fetched) + styles)))


def playBots():
    """
    One game of each kind, the three at once.
    """
    bots = {}
    for kind, port in PORTS.items():
        url = "{}://127.0.0.1:{}".format(kind, port)
        bots[kind] = subprocess.Popen(
            [sys.executable, "-m", "hub.bots", url, "--count", "2",
             "--level", "2", "--games", "1", "--delay", "0",
             "--timeout", str(BOT_TIMEOUT)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for kind, process in bots.items():
        out = process.communicate(timeout=BOT_TIMEOUT + TIMEOUT)[0]
        out = out.decode("utf-8", "replace")
        check(process.returncode == 0, "{} bots: exit status {}".format(
            kind, process.returncode), ("bots", out))
        step("{} bots: {}".format(kind, out.strip().splitlines()[-1]))


def checkRecords(cwd):
    """
    The records CLI lists the gomoku bots (they played one game each:
    listed from one game on), once the recorder has written the game.
    """
    deadline = time.monotonic() + TIMEOUT
    while True:
        status, out = run([sys.executable, "-m", "hub.records",
                           "leaderboard", "gomoku",
                           "--leaderboard-min-games", "1",
                           "--leaderboard-guests", "yes"], cwd=cwd)
        check(status == 0, "hub.records: exit status {}".format(status),
              ("hub.records", out))
        if "bot" in out or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    check("bot" in out, "the leaderboard lists no bot", ("records", out))
    step("hub.records leaderboard gomoku:\n" + out.rstrip())


def playEngines(hub, cwd):
    """
    A two-engine gomoku round robin, the engines in bwrap: played to its
    end, each engine's log ending as it left by itself.
    """
    hub.waitFor(r"engine sandbox: bwrap \(")
    cli = [sys.executable, "-m", "hub.tournaments", "--db",
           "sqlite:gamehub.sqlite"]

    def tournaments(*args):
        status, out = run(cli + list(args), cwd=cwd)
        check(status == 0, "hub.tournaments {}: exit status {}".format(
            args[0], status), ("hub.tournaments", out))
        return out

    event = tournaments("create", "--name", "smoke", "--game", "gomoku",
                        "--format", "round-robin").strip().splitlines()[-1]
    for name in ("engineA", "engineB"):
        tournaments("engine", "add", event, name, "--", "python", "-m",
                    "hub.bots", "gomoku://{host}:{port}", "--name", "{name}",
                    "--key-env", "--room", "{room}", "--level", "1",
                    "--games", "1", "--delay", "0")
    tournaments("start", event)
    hub.waitFor(r"tournament {} \('smoke'\) finished".format(event),
                timeout=BOT_TIMEOUT)
    logs = os.path.join(cwd, "engines", "logs", event)
    deadline = time.monotonic() + TIMEOUT
    while True:
        texts = []
        for folder, _, files in os.walk(logs):
            for name in files:
                with open(os.path.join(folder, name), "rb") as f:
                    texts.append(f.read().decode("utf-8", "replace"))
        done = [t for t in texts
                if t.endswith("# exited with status 0 (by itself)\n")]
        if len(done) == 4 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    check(len(done) == 4, "engine logs: {} of 4 ended well".format(
        len(done)), *[("engine log", t) for t in texts])
    step("hub.tournaments: two engines played their event in bwrap")


def checkStopped(hub):
    """
    SIGTERM stops C{hub} cleanly: its shutdown runs to the end ("Main loop
    terminated", "Server Shut Down") without a traceback, and it exits
    with status 0, or by SIGTERM, which twistd raises again at its very
    end so that its parent sees why it stopped (as systemd expects: a
    clean stop of a service).
    """
    status = hub.terminate()
    log = hub.log()
    check(status in (0, -signal.SIGTERM), "{}: exit status {} on "
          "SIGTERM".format(hub.name, status), (hub.name, log))
    for line in ("Main loop terminated.", "Server Shut Down."):
        check(line in log, "{}: no {!r}".format(hub.name, line),
              (hub.name, log))
    check("Traceback" not in log and "Unhandled" not in log,
          hub.name + ": a traceback in its log", (hub.name, log))
    step("{}: SIGTERM: Server Shut Down, exit status {}".format(
        hub.name, "0" if status == 0 else "SIGTERM (twistd's own)"))


def redisKeys(redisURL):
    """
    The keys in Redis at C{redisURL} (an inline C{KEYS *}).
    """
    parts = urllib.parse.urlsplit(redisURL)
    with socket.create_connection((parts.hostname, parts.port or 6379),
                                  timeout=TIMEOUT) as s:
        db = parts.path.strip("/") or "0"
        s.sendall("SELECT {}\r\nKEYS *\r\n".format(db).encode())
        reply = b""
        while reply.count(b"\r\n") < 2 or not _complete(reply):
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply.decode("utf-8", "replace")


def _complete(reply):
    lines = reply.split(b"\r\n")
    if len(lines) < 3 or not lines[1].startswith(b"*"):
        return False
    return len(lines) >= 2 + 2 * int(lines[1][1:]) + 1


def checkCluster(wheel, redisURL, cwd):
    status, out = run([sys.executable, "-m", "pip", "install", "-q",
                       wheel + "[cluster]"], timeout=600)
    check(status == 0, "pip install the cluster extra", ("pip", out))
    node = "smoke-{}".format(os.getpid())
    loopback = "tcp:0:interface=127.0.0.1"
    hub = Twistd(["--pidfile=", "gamehub", "--gomoku-port", loopback,
                  "--checkers-port", loopback, "--splendor-port", loopback,
                  "--web-port", "none", "--db", "none", "--announce", "no",
                  "--cluster", redisURL, "--node-id", node], cwd,
                 "cluster node")
    try:
        match = hub.waitFor(r"cluster node '[^']+' links on (\S+)")
        deadline = time.monotonic() + TIMEOUT
        while node not in redisKeys(redisURL):
            check(time.monotonic() < deadline,
                  "the node never registered in Redis",
                  ("cluster node", hub.log()))
            time.sleep(0.2)
        check("Redis unavailable" not in hub.log(), "Redis unavailable",
              ("cluster node", hub.log()))
        step("--cluster: node {} links on {}, registered in Redis".format(
            node, match.group(1)))
        checkStopped(hub)
    finally:
        hub.kill()


def main(wheel, redisURL):
    began = time.monotonic()
    cwd = os.path.dirname(os.path.abspath(__file__))
    os.chdir(cwd)
    checkInstalled()
    checkMissingExtra(redisURL, cwd)
    hub = Twistd(["gamehub"], cwd, "twistd -n gamehub")
    try:
        for factory, port in (("GomokuFactory", PORTS["gomoku"]),
                              ("CheckersFactory", PORTS["checkers"]),
                              ("SplendorFactory", PORTS["splendor"]),
                              ("HubSite", WEB_PORT)):
            hub.waitFor(r"{} starting on {}\b".format(factory, port))
        hub.waitFor(r"recording games in sqlite")
        step("twistd -n gamehub: listening on its default ports")
        checkWeb()
        playBots()
        checkRecords(cwd)
        playEngines(hub, cwd)
        checkStopped(hub)
    except Exception as e:
        if not isinstance(e, SmokeFailure):
            print("--- {} ---\n{}".format(hub.name, hub.log()), flush=True)
        raise
    finally:
        hub.kill()
    checkCluster(wheel, redisURL, cwd)
    step("passed in {:.1f} s".format(time.monotonic() - began))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python smoke.py WHEEL redis://HOST:PORT/DB")
    try:
        main(os.path.abspath(sys.argv[1]), sys.argv[2])
    except (SmokeFailure, subprocess.TimeoutExpired) as e:
        print("smoke: FAILED: {}".format(e), flush=True)
        sys.exit(1)
