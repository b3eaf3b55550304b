"""
Private, throwaway PostgreSQL and Redis servers for a pytest run, as
C{.ci/run} starts them: so that a contributor who has the servers
installed runs the tests CI runs instead of skipping them.

C{tests/conftest.py} calls L{startServers} in pytest's controller (the
single process, or xdist's controller before it starts its workers, which
inherit the environment) and L{PrivateServers.stop} at the end.  A server
is started only when:
    - its variable (C{GAMEHUB_TEST_POSTGRES}, C{GAMEHUB_TEST_REDIS}) is not
      set already (C{.ci/run} sets both: then nothing is started);
    - its binaries are installed (Debian's C{postgresql},
      C{redis-server});
    - the run includes the tests that need it (C{tests/records},
      C{tests/cluster}).
C{GAMEHUB_TEST_SERVERS=no} turns this off.  Trial runs never start them.
"""

import os
import selectors
import shutil
import socket
import subprocess
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POSTGRES_ENV = "GAMEHUB_TEST_POSTGRES"
REDIS_ENV = "GAMEHUB_TEST_REDIS"
SWITCH_ENV = "GAMEHUB_TEST_SERVERS"
#: The test folders that need each server.
NEEDS = {POSTGRES_ENV: os.path.join(TOP, "tests", "records"),
         REDIS_ENV: os.path.join(TOP, "tests", "cluster")}
TIMEOUT = 30.0


def overlaps(paths, folder):
    """
    Whether a run of C{paths} (pytest's arguments, C{path::test} allowed)
    holds tests under C{folder}.
    """
    folder = os.path.realpath(folder)
    for path in paths:
        path = os.path.realpath(path.split("::")[0])
        try:
            common = os.path.commonpath([path, folder])
        except ValueError:
            continue
        if common in (path, folder):
            return True
    return False


def freePort():
    """
    A TCP port free on loopback now.
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgresInstalled():
    """
    Whether Debian's PostgreSQL server binaries are there.
    """
    import glob
    return bool(glob.glob("/usr/lib/postgresql/*/bin/initdb"))


def startPostgres():
    """
    A throwaway cluster through C{.ci/postgres start}.

    @return: C{(url, stop)}: its URL and a callable that stops it.
    """
    script = os.path.join(TOP, ".ci", "postgres")
    done = subprocess.run(["bash", script, "start"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT,
                          check=True)
    exported = {}
    for line in done.stdout.decode().splitlines():
        if line.startswith("export ") and "=" in line:
            key, _, value = line[len("export "):].partition("=")
            exported[key] = value
    folder = exported["GAMEHUB_PG_DIR"]

    def stop():
        subprocess.run(["bash", script, "stop", folder],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=TIMEOUT)
    return exported[POSTGRES_ENV], stop


def spawnRedis(binary, port, options=(), timeout=TIMEOUT):
    """
    Start C{redis-server} on loopback C{port}, without disk, and return
    its process once it says it accepts connections: its log is read for
    that line, no polling.

    @param options: more command-line options (C{--dir FOLDER}).
    @raise RuntimeError: it exits, or does not say so within C{timeout}
        seconds (the process is then killed).
    """
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    log = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while b"Ready to accept connections" not in log:
            left = deadline - time.monotonic()
            data = b""
            if left > 0 and selector.select(left):
                data = os.read(process.stdout.fileno(), 65536)
            if not data:
                process.kill()
                process.wait()
                process.stdout.close()
                raise RuntimeError(
                    "redis-server did not start on port {}:\n{}".format(
                        port, log.decode("utf-8", "replace")))
            log += data
    # Its log is written from now on where no one waits for it.
    process.stdout.close()
    return process


def startRedis(binary="redis-server"):
    """
    A C{redis-server} on a free loopback port, without disk.

    @return: C{(url, stop)}: its URL and a callable that stops it.
    @raise RuntimeError: it does not start in time.
    """
    folder = tempfile.mkdtemp(prefix="gamehub-redis-")
    port = freePort()
    try:
        process = spawnRedis(binary, port, ["--dir", folder])
    except RuntimeError:
        shutil.rmtree(folder, True)
        raise

    def stop():
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(folder, True)
    return "redis://127.0.0.1:{}/0".format(port), stop


def _answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), 1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class PrivateServers:
    """
    The servers one run started, and how to stop them.

    @ivar started: the names of the variables set, in order.
    @ivar problems: what failed to start, in words.
    """

    def __init__(self):
        self.started = []
        self.problems = []
        self._stops = []

    def start(self, paths, environ=os.environ):
        """
        Start what the run of C{paths} needs and lacks (see the module's
        docstring), and export its variable in C{environ}.
        """
        if environ.get(SWITCH_ENV, "").lower() == "no":
            return
        starters = {POSTGRES_ENV: (postgresInstalled, startPostgres),
                    REDIS_ENV: (lambda: shutil.which("redis-server"),
                                startRedis)}
        for name, (installed, starter) in starters.items():
            if environ.get(name) or not overlaps(paths, NEEDS[name]):
                continue
            if not installed():
                continue
            try:
                url, stop = starter()
            except Exception as e:
                # the tests that need it skip (or fail under CI=true)
                self.problems.append("{}: {}".format(name, e))
                continue
            self._stops.append(stop)
            environ[name] = url
            self.started.append(name)

    def stop(self, environ=os.environ):
        """
        Stop every server started, newest first, and unset its variable.
        """
        while self._stops:
            self._stops.pop()()
        for name in self.started:
            environ.pop(name, None)
        self.started = []
