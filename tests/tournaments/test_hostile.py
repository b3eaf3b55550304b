"""
The hostile-engine suite: the real hub (C{twistd -n gamehub}, engines in
bwrap, its default) runs a small event whose entrants include a fork
bomb, a memory hog, a disk filler, an engine that never answers, one
that prints garbage, and one that tries the database, the web port and
other engines' names and keys (C{hostileengine.py}); the other games
finish, the hub's memory and open files stay bounded, nothing of them
is left after.  Also: a hub without bwrap, and one with
C{--engine-sandbox none}.
"""

import json
import os
import re
import sys
import threading

from twisted.trial.unittest import SynchronousTestCase

from tests.endtoend import GamehubServer, waitUntil
from tests.sandbox.support import marked
from tests.tournaments.test_endtoend import (
    GAME_TIMEOUT, EndToEndMixin)

HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "hostileengine.py")
MB = 1024 * 1024


def fair(level=1):
    """
    The command line of a fair engine: the hub's bot client.
    """
    return [sys.executable, "-m", "hub.bots", "gomoku://{host}:{port}",
            "--name", "{name}", "--key-env", "--room", "{room}", "--level",
            str(level), "--games", "1", "--delay", "0", "--seed", "2"]


class Sampler:
    """
    The resident memory and open descriptors of process C{pid}, sampled
    every C{interval} seconds by a thread until L{stop}.
    """

    def __init__(self, pid, interval=0.25):
        self.pid = pid
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval,),
                                        daemon=True)
        self._thread.start()

    def now(self):
        with open("/proc/%d/status" % (self.pid,)) as f:
            rss = [int(line.split()[1]) * 1024 for line in f
                   if line.startswith("VmRSS:")][0]
        return rss, len(os.listdir("/proc/%d/fd" % (self.pid,)))

    def _run(self, interval):
        while not self._stop.wait(interval):
            try:
                self.samples.append(self.now())
            except (OSError, IndexError):
                return

    def stop(self):
        self._stop.set()
        self._thread.join()

    def peak(self):
        return (max(s[0] for s in self.samples),
                max(s[1] for s in self.samples))


class HostileEngineTests(EndToEndMixin, SynchronousTestCase):
    """
    Hostile engines beside fair ones.
    """

    def test_hostileEvent(self):
        """
        A Swiss event of two rounds, a 3 s turn clock, eight engines: two
        fair ones and the six hostile ones.  Every game is played to a
        result; the hostile engines are held by their walls (each says
        what it met); no name is taken; the hub's memory grows by less
        than 64 MiB and its descriptors by less than 200, back to where
        they were once the engines are gone; nothing of them is left.
        """
        server = GamehubServer(self, "--db", self.url,
                               games=("gomoku", "web"))
        names = ["fair1", "fair2", "bomb", "hog", "filler", "silent",
                 "noise", "intruder"]
        eventId = int(self.cli(
            "create", "--name", "Hostile", "--game", "gomoku", "--format",
            "swiss", "--rounds", "2", "--turn-seconds", "3").splitlines()[-1])
        for name in ("fair1", "fair2"):
            self.cli("engine", "add", str(eventId), name, "--", *fair())
        modes = {"bomb": "forkbomb", "hog": "memoryhog",
                 "filler": "diskfiller", "silent": "silent",
                 "noise": "garbage", "intruder": "intruder"}
        for name, mode in modes.items():
            extra = []
            if mode == "intruder":
                extra = [self.path, str(server.port("web")),
                         str(server.port("gomoku")), ",".join(names)]
            options = ["--memory", "256M"] if mode == "memoryhog" else []
            self.cli("engine", "add", str(eventId), name, "--folder",
                     os.path.dirname(HOSTILE), *options, "--",
                     sys.executable, HOSTILE, mode, "{host}", "{port}",
                     "{name}", "{room}", *extra)
        sampler = Sampler(server.pid)
        self.addCleanup(sampler.stop)
        waitUntil(lambda: sampler.samples, 10, "no sample")
        baseline = sampler.samples[0]
        games = self.playedThrough(server, eventId, "Hostile")
        self.assertEqual(len(games), 8)
        for game in games:
            self.assertNotIn(game["result"], (None, "no-show",
                                              "engine-failed"), game)

        # The engines go (their leave, then their SIGTERM).
        waitUntil(lambda: not marked(HOSTILE), 60,
                  lambda: "left: %r" % (marked(HOSTILE),))
        waitUntil(lambda: sampler.now()[1] <= baseline[1] + 10, 60,
                  lambda: "descriptors: %r, then %r" % (
                      baseline, sampler.now()))
        sampler.stop()
        rss, fds = sampler.peak()
        self.assertLess(rss - baseline[0], 64 * MB, (baseline, rss))
        self.assertLess(fds - baseline[1], 200, (baseline, fds))

        data = os.path.dirname(self.path)
        logs = os.path.join(data, "engines", "logs", str(eventId))
        reports, sizes = {}, {}
        for room in os.listdir(logs):
            for file in os.listdir(os.path.join(logs, room)):
                path = os.path.join(logs, room, file)
                sizes[file] = max(sizes.get(file, 0), os.path.getsize(path))
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8", "replace")
                for mode, found in re.findall(r"^hostile (\w+): (.*)$",
                                              text, re.M):
                    reports.setdefault(mode, []).append(json.loads(found))
        self.assertEqual(sorted(reports), ["diskfiller", "forkbomb",
                                           "intruder", "memoryhog"])
        for found in reports["forkbomb"]:
            self.assertLess(found["children"], 64)
        for found in reports["memoryhog"]:
            self.assertLess(found["mib"], 256)
        for found in reports["diskfiller"]:
            written, why = found["/tmp/fill"]
            self.assertLessEqual(written, 64)
            self.assertIn(why, ("No space left on device",
                                "File too large"))
            for path in ("/usr/fill", "/dev/shm/fill"):
                self.assertEqual(found[path][0], 0, found)
        for found in reports["intruder"]:
            self.assertEqual(found["database read"],
                             "unable to open database file")
            self.assertEqual(found["database write"],
                             "unable to open database file")
            self.assertEqual(found["web"], "ConnectionRefusedError")
            self.assertEqual(found["public"], "ConnectionRefusedError")
            self.assertEqual(found["keys seen"], 1)
            self.assertEqual(found["names taken"], [])
            self.assertEqual(found["names tried"], 2 * (len(names) - 1))
        # The garbage printer's log stops at its cap.
        self.assertLess(sizes["noise.log"], 1024 * 1024 + 4096)
        # On disk: the database and the logs, nothing else.
        left = sorted(
            os.path.relpath(os.path.join(folder, name), data)
            for folder, _, files in os.walk(data) for name in files
            if not name.startswith("hub.sqlite"))
        self.assertTrue(all(p.startswith("engines/logs/") for p in left),
                        left)
        self.assertEqual(os.listdir(server.workdir), [])


class SandboxChoiceTests(EndToEndMixin, SynchronousTestCase):
    """
    Without bwrap, an event with engines does not start; with
    C{--engine-sandbox none} it runs, with a warning at every engine
    start.
    """

    def event(self):
        eventId = int(self.cli(
            "create", "--name", "Plain", "--game", "gomoku", "--format",
            "round-robin").splitlines()[-1])
        for name in ("fair1", "fair2"):
            self.cli("engine", "add", str(eventId), name, "--", *fair())
        return eventId

    def test_noBwrap(self):
        """
        A hub whose C{PATH} has no bwrap says so at its start, and an
        event with engines stays unstarted (paused) with one line saying
        how to install bwrap or opt out.
        """
        folder = os.path.dirname(sys.executable)
        env = dict(os.environ, PATH=folder)
        server = GamehubServer(self, "--db", self.url, games=("gomoku",),
                               env=env)
        eventId = self.event()
        self.cli("start", str(eventId))
        line = ("tournament %d ('Plain') cannot start: the engine sandbox "
                "needs bubblewrap: apt-get install bubblewrap, or run the "
                "hub with --engine-sandbox none (engines then run with the "
                "hub's own rights)" % (eventId,))
        server.waitForLog(re.escape(line))
        self.assertIn("engine sandbox: the engine sandbox needs bubblewrap",
                      "".join(server.output))
        data = json.loads(self.cli("export", str(eventId)))
        self.assertEqual((data["state"], data["rounds"]), ("paused", []))

    def test_none(self):
        """
        C{--engine-sandbox none}: the event is played, each engine's
        start warned of.
        """
        server = GamehubServer(self, "--db", self.url, "--engine-sandbox",
                               "none", games=("gomoku",))
        eventId = self.event()
        self.cli("start", str(eventId))
        server.waitForLog(r"tournament %d \('Plain'\) finished" % (eventId,),
                          timeout=GAME_TIMEOUT * 2)
        warned = re.findall(r"engine (fair\d) of %d-\d-1 runs with no "
                            r"sandbox \(--engine-sandbox none\)" % (eventId,),
                            "".join(server.output))
        self.assertEqual(sorted(warned), ["fair1", "fair1", "fair2",
                                          "fair2"])
        self.assertEqual(os.listdir(server.workdir), [])
        work = os.path.join(os.path.dirname(self.path), "engines", "work")
        waitUntil(lambda: not os.listdir(work), 30, "work folders left")
