"""
Tests for L{hub.sessions}.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.ihub import ISession, ISessions
from hub.sessions import INVALID_TOKEN, NameTaken, Sessions


class SessionsTests(SynchronousTestCase):
    """
    Identities, names, tokens and reconnect grace.
    """

    def setUp(self):
        self.clock = Clock()
        self.sessions = Sessions(self.clock, graceSeconds=30)

    def test_interfaces(self):
        """
        L{Sessions} and its sessions provide their interfaces.
        """
        verifyObject(ISessions, self.sessions)
        verifyObject(ISession, self.sessions.connect("gomoku", object()))

    def test_idsArePositiveAndUnique(self):
        """
        Session ids start at 1 and are never reused, whatever the kind.
        """
        a = self.sessions.connect("splendor", object())
        b = self.sessions.connect("gomoku", object())
        self.sessions.disconnect(a)
        c = self.sessions.connect("splendor", object())
        self.assertEqual([a.id, b.id, c.id], [1, 2, 3])

    def test_claimNameIssuesToken(self):
        """
        Claiming a name sets it and issues a token that is not 2**64-1.
        """
        s = self.sessions.connect("gomoku", object())
        self.sessions.claimName(s, "alice")
        self.assertEqual(s.name, "alice")
        self.assertIsInstance(s.token, int)
        self.assertNotEqual(s.token, INVALID_TOKEN)
        self.assertIs(self.sessions.byName("gomoku", "alice"), s)

    def test_tokenNeverInvalid(self):
        """
        A random source that yields 2**64-1 first is asked again.
        """
        values = iter([INVALID_TOKEN, 7])
        sessions = Sessions(self.clock, randomBits=lambda n: next(values))
        s = sessions.connect("gomoku", object())
        sessions.claimName(s, "alice")
        self.assertEqual(s.token, 7)

    def test_nameTakenPerKind(self):
        """
        A name is unique within a game kind only.
        """
        a = self.sessions.connect("gomoku", object())
        b = self.sessions.connect("gomoku", object())
        c = self.sessions.connect("checkers", object())
        self.sessions.claimName(a, "alice")
        self.assertRaises(NameTaken, self.sessions.claimName, b, "alice")
        self.sessions.claimName(c, "alice")

    def test_disconnectFreesName(self):
        """
        After a disconnect the name can be claimed again.
        """
        a = self.sessions.connect("gomoku", object())
        self.sessions.claimName(a, "alice")
        self.sessions.disconnect(a)
        b = self.sessions.connect("gomoku", object())
        self.sessions.claimName(b, "alice")
        self.assertTrue(a.closed)
        self.assertEqual(len(self.sessions), 1)

    def test_resumeWithinGrace(self):
        """
        A lost session can be resumed with its name and token before the
        grace expires; the expiry callback is then never called.
        """
        expired = []
        a = self.sessions.connect("gomoku", object())
        self.sessions.claimName(a, "alice")
        self.sessions.lose(a, expired.append)
        self.assertTrue(a.lost)
        self.assertIsNone(a.peer)
        self.clock.advance(29)
        peer = object()
        self.assertIs(self.sessions.resume("gomoku", "alice", a.token, peer),
                      a)
        self.assertIs(a.peer, peer)
        self.assertFalse(a.lost)
        self.clock.advance(100)
        self.assertEqual(expired, [])

    def test_resumeWrongToken(self):
        """
        A wrong token or an unknown name resumes nothing.
        """
        a = self.sessions.connect("gomoku", object())
        self.sessions.claimName(a, "alice")
        self.sessions.lose(a, lambda s: None)
        self.assertIsNone(
            self.sessions.resume("gomoku", "alice", a.token + 1, object()))
        self.assertIsNone(
            self.sessions.resume("gomoku", "bob", a.token, object()))

    def test_resumeLiveSession(self):
        """
        A live session can be taken over with its token: the player came
        back before the old connection was seen to drop.
        """
        a = self.sessions.connect("gomoku", object())
        self.sessions.claimName(a, "alice")
        peer = object()
        self.assertIs(
            self.sessions.resume("gomoku", "alice", a.token, peer), a)
        self.assertIs(a.peer, peer)

    def test_graceExpiry(self):
        """
        When the grace runs out the callback runs and the name is freed.
        """
        expired = []
        a = self.sessions.connect("gomoku", object())
        self.sessions.claimName(a, "alice")
        self.sessions.lose(a, expired.append)
        self.clock.advance(30)
        self.assertEqual(expired, [a])
        self.assertTrue(a.closed)
        self.assertIsNone(self.sessions.byName("gomoku", "alice"))

    def test_stopServiceCancelsGrace(self):
        """
        Stopping the service cancels pending grace timers.
        """
        expired = []
        a = self.sessions.connect("gomoku", object())
        self.sessions.claimName(a, "alice")
        self.sessions.startService()
        self.sessions.lose(a, expired.append)
        self.sessions.stopService()
        self.assertEqual(self.clock.getDelayedCalls(), [])
        self.clock.advance(60)
        self.assertEqual(expired, [])

    def test_label(self):
        """
        Logs name a player by name, or by id before it has one.
        """
        a = self.sessions.connect("splendor", object())
        self.assertEqual(a.label, "#1")
        self.sessions.claimName(a, "alice")
        self.assertEqual(a.label, "alice")
