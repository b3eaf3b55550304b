"""
Browser play's bots and hints think in the hub's thinker, and a player's
room bots keep to its share (L{hub.thinkers.shares}).
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.ihub import NoThought
from hub.thinkers.shares import BotShares
from hub.web import play as playing

from tests.tables.test_seatpilot import HeldThinker
from tests.web.playsupport import PlayHub


class SharesTests(SynchronousTestCase):
    """
    Room bots asked past a player's share are refused, with a typed
    error, and nothing is made.
    """

    def setUp(self):
        self.hub = PlayHub(shares=BotShares(seats=3, strong=1))
        self.addCleanup(self.hub.stop)

    def test_createRefused(self):
        """
        A checkers room of six with bots needs five: past a share of
        three, C{too-many-bots}, and no room is made.
        """
        browser = self.hub.browser("alice", host="10.0.0.1")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 6, "bots": True, "level": 1})
        self.assertEqual(browser.errors(), [playing.TOO_MANY_BOTS])
        self.assertEqual(self.hub.lobby.allRooms(), [])
        self.assertEqual(list(self.hub.sessions), [])

    def test_acrossRooms(self):
        """
        The share counts the bots of every room of the address: a second
        room's bots are refused past it; another address is not
        concerned; once the first room's bots are gone, there is room
        again.
        """
        alice = self.hub.browser("alice", host="10.0.0.1")
        alice.send({"type": "create", "kind": "checkers", "room": "r1",
                    "players": 3, "bots": True, "level": 1})
        self.assertEqual(alice.errors(), [])
        ann = self.hub.browser("ann", host="10.0.0.1")
        ann.send({"type": "create", "kind": "gomoku", "room": "g1"})
        ann.send({"type": "bots", "count": 1, "level": 1})
        self.assertEqual(ann.errors(), [])
        amy = self.hub.browser("amy", host="10.0.0.1")
        amy.send({"type": "create", "kind": "gomoku", "room": "g3"})
        amy.send({"type": "bots", "count": 1, "level": 1})
        self.assertEqual(amy.errors(), [playing.TOO_MANY_BOTS])
        self.assertEqual(len(self.hub.lobby.room("gomoku", "g3").members),
                         1)
        bob = self.hub.browser("bob", host="10.0.0.2")
        bob.send({"type": "create", "kind": "gomoku", "room": "g2",
                  "bots": True, "level": 1})
        self.assertEqual(bob.errors(), [])
        alice.send({"type": "leave"})
        self.hub.clock.advance(1)
        amy.clear()
        amy.send({"type": "bots", "count": 1, "level": 1})
        self.assertEqual(amy.errors(), [])
        self.assertEqual(len(self.hub.lobby.room("gomoku", "g3").members),
                         2)

    def test_level3(self):
        """
        Level 3 has a share of its own: a second level-3 bot is refused
        with C{too-many-strong-bots}; a level-2 one fits.
        """
        alice = self.hub.browser("alice", host="10.0.0.1")
        alice.send({"type": "create", "kind": "gomoku", "room": "g1",
                    "bots": True, "level": 3})
        bob = self.hub.browser("bob", host="10.0.0.1")
        bob.send({"type": "create", "kind": "gomoku", "room": "g2",
                  "bots": True, "level": 3})
        self.assertEqual(bob.errors(), [playing.TOO_MANY_STRONG_BOTS])
        self.assertIsNone(self.hub.lobby.room("gomoku", "g2"))
        bob.send({"type": "create", "kind": "gomoku", "room": "g2",
                  "bots": True, "level": 2})
        self.assertEqual(bob.errors(), [playing.TOO_MANY_STRONG_BOTS])

    def test_perAccount(self):
        """
        An account's bots count from every address it plays from.
        """
        class Visitor:
            banned = False

            def __init__(self, name):
                self.name = name

        first = self.hub.browser(host="10.0.0.1")
        first.visitor = Visitor("Carol")
        first.hello(None)
        first.send({"type": "create", "kind": "checkers", "room": "r1",
                    "players": 3, "bots": True, "level": 1})
        second = self.hub.browser(host="10.0.0.9")
        second.visitor = Visitor("Carol")
        second.hello(None)
        second.send({"type": "create", "kind": "checkers", "room": "r2",
                     "players": 3, "bots": True, "level": 1})
        self.assertEqual(second.errors(), [playing.TOO_MANY_BOTS])
        # A guest at that address is not Carol.
        guest = self.hub.browser("dave", host="10.0.0.9")
        guest.send({"type": "create", "kind": "checkers", "room": "r3",
                    "players": 3, "bots": True, "level": 1})
        self.assertEqual(guest.errors(), [])


class HintTests(SynchronousTestCase):
    """
    A hint is asked of the hub's thinker, and sent when it answers.
    """

    def setUp(self):
        self.thinker = HeldThinker()
        self.hub = PlayHub(thinker=self.thinker)
        self.addCleanup(self.hub.stop)
        self.browser = self.hub.browser("alice")
        self.browser.send({"type": "create", "kind": "gomoku", "room": "g1",
                           "seat": 0})
        self.other = self.hub.browser("bob")
        self.other.send({"type": "join", "kind": "gomoku", "room": "g1"})
        self.other.send({"type": "ready"})
        self.browser.send({"type": "start"})
        self.table = self.browser.player.table

    def test_hint(self):
        """
        The thinker is asked for the level-2 move of the player's seat;
        its answer is the hint.
        """
        self.browser.send({"type": "hint"})
        [(kind, level, seed, state, seat, d)] = self.thinker.questions
        self.assertEqual((kind, level, seat), ("gomoku", playing.HINT_LEVEL,
                                               0))
        self.assertIsNone(self.browser.last("hint"))
        self.thinker.answer((3, 3))
        self.assertEqual(self.browser.last("hint"),
                         {"type": "hint", "action": [3, 3]})

    def test_onePending(self):
        """
        A second hint while the first is being worked out is refused
        (C{hint-pending}); once it came, another may be asked.
        """
        self.browser.send({"type": "hint"})
        self.browser.send({"type": "hint"})
        self.assertEqual(self.browser.errors(), [playing.HINT_PENDING])
        self.thinker.answer((3, 3))
        self.browser.send({"type": "hint"})
        self.assertEqual(len(self.thinker.questions), 2)

    def test_stale(self):
        """
        A hint that comes after the player moved is not sent.
        """
        self.browser.send({"type": "hint"})
        self.browser.send({"type": "act", "action": [7, 7]})
        self.thinker.answer((3, 3))
        self.assertIsNone(self.browser.last("hint"))

    def test_noHint(self):
        """
        A thinker without an answer (its queue full, say): the player is
        told C{unavailable}.
        """
        self.browser.send({"type": "hint"})
        self.thinker.answer(NoThought(NoThought.FULL))
        self.assertEqual(self.browser.errors(), [playing.UNAVAILABLE])
