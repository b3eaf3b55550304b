"""
The stdio engine protocol (L{hub.tournaments.stdio}): its requests and
answers, and the examples of C{examples/engines/} (a random legal player
per game in Python, and one in C built here with C{cc}) playing real
games in the bwrap sandbox through the engine launcher.
"""

import json
import os
import shutil
import subprocess

from twisted.internet import defer
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.games import splendor
from hub.tables import events
from hub.tournaments import gomocup, stdio
from hub.tournaments.interfaces import EngineSpec
from tests.sandbox.support import folder, waitFor
from tests.tournaments.test_engines import MB, bounded
from tests.tournaments.test_gomocup import Event, HubHarness, Pairing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "engines")


class CodecTests(SynchronousTestCase):
    """
    A request's fields and an answer's checks.
    """

    def test_request(self):
        """
        One compact JSON line: the protocol and its version, the kind,
        the seat, the seats, the position, the legal actions in the
        records' JSON form, the time left and the turn's allowance.
        """
        line = stdio.request("gomoku", 1, 2, {"size": 15, "moves": [[7, 7]]},
                             [(0, 0), (1, 0)], 170000, 5000)
        self.assertTrue(line.endswith(b"\n"))
        self.assertNotIn(b" ", line)
        self.assertEqual(json.loads(line), {
            "protocol": "gamehub-stdio", "version": 1, "kind": "gomoku",
            "seat": 1, "seats": 2,
            "position": {"size": 15, "moves": [[7, 7]]},
            "legal": [[0, 0], [1, 0]], "timeLeftMs": 170000,
            "turnMs": 5000})

    def test_answer(self):
        """
        An answer's action, as the records write it, is the canonical
        action if legal; anything else is an illegal action.
        """
        legal = [((0, 0), (1, 1)), ((2, 2), (3, 3))]
        self.assertEqual(stdio.answer("checkers", [[2, 2], [3, 3]], legal),
                         ((2, 2), (3, 3)))
        for wrong in ([[9, 9], [3, 3]], "e4", {"op": 1}, None):
            e = self.assertRaises(gomocup.BrainFailed, stdio.answer,
                                  "checkers", wrong, legal)
            self.assertEqual(e.reason, gomocup.ILLEGAL)
        buy = splendor.Action("get_gems", 0, (("diamond", 1), ("ruby", 1),
                                              ("emerald", 1))).canonical()
        self.assertEqual(stdio.answer(
            "splendor", {"op": "get_gems", "card": 0, "gems": {
                "ruby": 1, "emerald": 1, "diamond": 1}}, [buy]), buy)

    def test_splendorPosition(self):
        """
        Splendor's position shows a seat its own reserved cards, and the
        others' as a count only.
        """
        game = splendor.SplendorGame(2)
        card = game.board[0][0]
        game.apply(0, splendor.Action("fold_card", card, ()))
        mine = stdio.splendorPosition(game, 0)
        theirs = stdio.splendorPosition(game, 1)
        self.assertEqual(mine["players"][0]["reserved"], [card])
        self.assertNotIn("reserved", theirs["players"][0])
        self.assertEqual(theirs["players"][0]["reservedCount"], 1)
        self.assertEqual(theirs["decks"], [len(d) for d in game.decks])
        json.dumps(mine)


class Example:
    """
    An engine entrant that is one of the examples.
    """

    key = None

    def __init__(self, name, argv, folder):
        self.name = name
        self.engine = EngineSpec(name, tuple(argv), folder, "stdio", 60,
                                 512 * MB)


class ExampleTests(HubHarness, TestCase):
    """
    The examples play: Python against C, at each game.
    """

    def setUp(self):
        HubHarness.setUp(self)
        self.built = folder(self, 0o755)
        for name in os.listdir(EXAMPLES):
            shutil.copy(os.path.join(EXAMPLES, name), self.built)
        subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-o",
                        os.path.join(self.built, "random_player"),
                        os.path.join(self.built, "random_player.c")],
                       check=True, timeout=120)

    def python(self, name, kind):
        return Example(name, ["python", os.path.join(self.built,
                                                     kind + ".py")],
                       self.built)

    def c(self, name):
        return Example(name, [os.path.join(self.built, "random_player")],
                       self.built)

    def open(self, event, kind, entrants):
        """
        Open a C{kind} pairing's room and launch its engines.

        @return: the pairing.
        """
        pairing = Pairing(event.id, 1, 1, tuple(e.name for e in entrants),
                          kind)
        self.openRoom(pairing, kind)
        bounded(self.launcher.launch(Event(event.id, kind, 5000),
                                     pairing, entrants))
        return pairing

    @defer.inlineCallbacks
    def test_gomoku(self):
        """
        Python's and C's random players play a gomoku game to its end.
        """
        ended = yield self.play(Event(50, turnMs=5000), 1, 1,
                                self.python("py", "gomoku"), self.c("cc"))
        self.assertEqual(ended.reason, events.NORMAL)
        self.assertEqual(self.launcher.endOf(50, "50-1-1"), {})
        log = self.launcher.engineLog(50, "50-1-1", "py").decode()
        self.assertIn("debug: ", log)

    @defer.inlineCallbacks
    def test_splendor(self):
        """
        Two Python players and the C one play a three-seat Splendor game
        to its end; the director's C{entrantOf} knows each seat.
        """
        players = [self.python("py1", "splendor"), self.c("cc"),
                   self.python("py2", "splendor")]
        pairing = self.open(Event(51, "splendor"), "splendor", players)
        ended = yield bounded(self.watcher.whenEnded(pairing.room))
        self.assertEqual(ended.reason, events.NORMAL)
        table = self.watcher.tables[pairing.room]
        self.assertEqual(
            sorted(self.launcher.entrantOf(pairing.room, s.playerId)
                   for s in table.seats), ["cc", "py1", "py2"])
        self.assertEqual(self.launcher.endOf(51, pairing.room), {})
        self.launcher.stop(pairing, ended=True)

    @defer.inlineCallbacks
    def test_checkers(self):
        """
        Python's and C's random players play Chinese checkers: each
        plays 30 legal moves (random players may never finish), and the
        game is cut off.
        """
        pairing = self.open(Event(52, "checkers"), "checkers",
                            [self.python("py", "checkers"), self.c("cc")])
        room = self.hub.lobby.room("checkers", pairing.room)
        players = [p for p in self.launcher.brains.players[pairing.room]]
        yield waitFor(lambda: all(p.moves >= 30 for p in players))
        self.assertIsNotNone(room.table)
        self.assertFalse(room.table.over)
        self.assertEqual([p.failure for p in players], [None, None])
        self.launcher.stop(pairing)
