"""
No strategy ever runs in the hub's process: the real C{twistd -n gamehub}
with seat-filling bots, hints and a takeover bot playing, and a probe in
every Python process it runs that records where each strategy call
happens.

The probe is a C{sitecustomize} module on the server's C{PYTHONPATH}
(which its bot workers get too): in each process it notes that it is
loaded, and wraps L{hub.bots.base.Bot.chooseAction} to note the process
(and its parent and thread) of every call.  The test fails if one call
was in the hub's process, on its reactor thread or any other, and checks
that the probe was loaded there, that the calls came from the hub's own
workers, and that there were at least as many as the bot moves and hints
the players saw.
"""

import os
import shutil
import tempfile

from twisted.internet import defer, reactor
from twisted.trial.unittest import TestCase

from tests.endtoend import GamehubServer
from tests.web.wsclient import welcomed

PROBE = '''
import os, threading
_LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.log")


def _note(what):
    line = "%s %d %d %s\\n" % (what, os.getpid(), os.getppid(),
                               threading.current_thread().name)
    fd = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


_note("loaded")
try:
    import hub.bots.base as _base
except ImportError:
    pass
else:
    _choose = _base.Bot.chooseAction

    def chooseAction(self, state, seat):
        _note("call")
        return _choose(self, state, seat)
    _base.Bot.chooseAction = chooseAction
'''


class ProbeTests(TestCase):
    """
    Where the hub's bots think.
    """

    timeout = 180

    def setUp(self):
        self.probe = tempfile.mkdtemp(prefix="gamehub-probe-")
        self.addCleanup(shutil.rmtree, self.probe, True)
        with open(os.path.join(self.probe, "sitecustomize.py"), "w") as f:
            f.write(PROBE)
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        path = [self.probe, root] + [
            p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
        self.server = GamehubServer(
            self, "--takeover", "bot", "--bot-delay", "0.02",
            "--grace-seconds", "1", "--checkers-turn-seconds", "60",
            "--db", "none", games=("gomoku", "checkers", "web"), env=env)

    def player(self, name):
        return welcomed(self, reactor, self.server, name)

    @defer.inlineCallbacks
    def playByHints(self, client, seat):
        """
        Play gomoku's C{seat} for C{client} by the hub's hints, until the
        game ends.
        """
        done = 0
        while True:
            while done < len(client.messages):
                message = client.messages[done]
                done += 1
                event = message.get("event")
                if event == "GameEnded":
                    return message
                if (event == "TurnStarted" and message["seat"] == seat) or (
                        event == "ActionPlayed"
                        and message.get("next") == seat):
                    client.send({"type": "hint"})
                elif message["type"] == "hint":
                    client.send({"type": "act", "action": message["action"]})
            yield client.waitFor(lambda m: True, seen=False, timeout=60)

    def calls(self):
        """
        The probe's notes: C{(what, pid, parent pid, thread)}.
        """
        with open(os.path.join(self.probe, "calls.log")) as f:
            return [(what, int(pid), int(ppid), thread) for what, pid, ppid,
                    thread in (line.split(" ", 3) for line in
                               f.read().splitlines())]

    @staticmethod
    def botMoves(client):
        return sum(1 for m in client.messages
                   if m.get("event") == "ActionPlayed" and m.get("byBot"))

    @defer.inlineCallbacks
    def test_noStrategyInTheHub(self):
        """
        A gomoku room filled with a level-3 bot, a checkers room of three
        filled with two level-2 bots, each played to its end by a browser
        that plays the hub's hints, and a gomoku game whose second
        player leaves and whose seat a takeover bot plays to the end: not
        one strategy call in the hub's process; every one in its
        workers.
        """
        ann = yield self.player("ann")
        ann.send({"type": "create", "kind": "gomoku", "room": "g1",
                  "seat": 0, "bots": True, "level": 3})
        yield ann.waitFor(lambda m: m["type"] == "room" and m["room"]
                          and len(m["room"]["members"]) == 2)
        ann.send({"type": "start"})
        annPlays = self.playByHints(ann, 0)

        bea = yield self.player("bea")
        bea.autoPlay = "hint"
        bea.send({"type": "create", "kind": "checkers", "room": "c1",
                  "players": 3, "bots": True, "level": 2})
        yield bea.waitType("room")
        bea.send({"type": "ready"})

        cat = yield self.player("cat")
        cat.send({"type": "create", "kind": "gomoku", "room": "g2",
                  "seat": 0})
        dan = yield self.player("dan")
        dan.send({"type": "join", "kind": "gomoku", "room": "g2"})
        dan.send({"type": "ready"})
        yield cat.waitFor(lambda m: m["type"] == "room" and m["room"]
                          and len(m["room"]["members"]) == 2
                          and all(member["ready"] or member["you"]
                                  for member in m["room"]["members"]))
        cat.send({"type": "start"})
        catPlays = self.playByHints(cat, 0)
        yield dan.waitType("event", "GameStarted")
        yield dan.close()
        yield cat.waitType("event", "SeatTakenOver", timeout=30)

        yield annPlays
        yield catPlays
        yield bea.waitType("event", "GameEnded", timeout=120)

        hub = self.server.process.pid
        notes = self.calls()
        calls = [note for note in notes if note[0] == "call"]
        # The probe was in the hub too: its silence there means something.
        self.assertIn(hub, [pid for what, pid, _, _ in notes
                            if what == "loaded"])
        self.assertEqual([note for note in calls if note[1] == hub], [])
        self.assertEqual({ppid for _, _, ppid, _ in calls}, {hub})
        moves = sum(self.botMoves(c) for c in (ann, bea, cat))
        hints = sum(1 for c in (ann, bea, cat) for m in c.messages
                    if m["type"] == "hint")
        self.assertGreater(self.botMoves(ann), 5)
        self.assertGreater(self.botMoves(bea), 5)
        self.assertGreater(self.botMoves(cat), 0)
        self.assertGreater(hints, 5)
        self.assertGreaterEqual(len(calls), moves + hints)
