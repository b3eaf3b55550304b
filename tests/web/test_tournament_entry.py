"""
Tests for C{POST /api/tournaments/ID/entry} (L{hub.web.tournaments}): an
account enters an event, proven with its play key through the hub's name
check; the key is never answered nor logged.
"""

import json
from io import BytesIO

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.test.requesthelper import DummyRequest

from hub.accounts.check import WRONG_KEY, Verdict
from hub.tournaments import store
from hub.web.tournaments import TournamentsAPI, TournamentsWeb

KEY = "AbCdEfGh12"


class FakeNames:
    """
    The name check: C{alice} with L{KEY} is an account's (its answers are
    Deferreds, as L{hub.accounts.check.NameService.judge}'s).
    """

    def __init__(self):
        self.judged = []

    def judge(self, kind, wireName, host):
        self.judged.append((kind, wireName, host))
        if wireName == "alice__" + KEY:
            return defer.succeed(Verdict("Alice", False, "alice"))
        if "__" not in wireName:
            return defer.succeed(Verdict(wireName, True))
        return defer.succeed(WRONG_KEY)


class FakeDatabase:
    """
    Runs C{store.enter} against a dict of events.
    """

    def __init__(self):
        self.entered = []

    def runInteraction(self, interaction, eventId, name, now):
        self.assertEnter(interaction)
        if eventId == 404:
            return defer.fail(store.TournamentError("no event 404"))
        if eventId == 9:
            return defer.fail(store.TournamentError("event 9 is finished"))
        self.entered.append((eventId, name, now))
        return defer.succeed(name)

    def assertEnter(self, interaction):
        assert interaction is store.enter


class EntryTests(SynchronousTestCase):

    def setUp(self):
        self.names = FakeNames()
        self.database = FakeDatabase()
        self.clock = Clock()
        self.clock.advance(1000)
        self.web = TournamentsWeb(self.database, names=self.names,
                                  clock=self.clock)
        self.logged = []
        globalLogPublisher.addObserver(self.logged.append)
        self.addCleanup(globalLogPublisher.removeObserver,
                        self.logged.append)

    def test_noDirector(self):
        """
        Events without a director (L{ITournamentsWeb}) have no launcher;
        without a clock they have no feeds, and a change goes nowhere.
        """
        from zope.interface.verify import verifyObject

        from hub.web.interfaces import ITournamentsWeb
        verifyObject(ITournamentsWeb, self.web)
        self.assertIsNone(self.web.launcher())
        self.web.eventChanged(1)
        web = TournamentsWeb(self.database, names=self.names)
        self.assertIsNone(web.feeds)
        web.eventChanged(1)

    def post(self, eventId, body, names=True):
        if not names:
            self.web.names = None
        request = DummyRequest([b"entry"])
        request.method = b"POST"
        request.content = BytesIO(body)
        api = TournamentsAPI(self.web)
        child = api.getChild(str(eventId).encode(), request)
        result = child.render(request)
        if isinstance(result, bytes):
            request.write(result)
            request.finish()
        self.assertTrue(request.finished)
        answer = json.loads(b"".join(request.written).decode("utf-8"))
        return request.responseCode or 200, answer

    def entry(self, name, key):
        return json.dumps({"name": name, "key": key}).encode()

    def test_enters(self):
        """
        The name and key of an account enter it, under the account's own
        spelling, at the hub's time.
        """
        code, answer = self.post(3, self.entry("alice", KEY))
        self.assertEqual(code, 200)
        self.assertEqual(answer, {"event": 3, "name": "Alice",
                                  "entered": True})
        self.assertEqual(self.database.entered, [(3, "Alice", 1000)])
        self.assertEqual(self.names.judged[0][1], "alice__" + KEY)

    def test_wrongKey(self):
        """
        A wrong key, or a name with no key, is refused with one answer,
        and nobody is entered.
        """
        for body in (self.entry("alice", "x" * 10), self.entry("bob", "")):
            code, answer = self.post(3, body)
            self.assertEqual(code, 403)
            self.assertEqual(answer["error"],
                             "that name and play key prove no account")
        self.assertEqual(self.database.entered, [])

    def test_keyNeverLogged(self):
        """
        Neither a good key nor a bad one reaches the log or the answer.
        """
        _, good = self.post(3, self.entry("alice", KEY))
        _, bad = self.post(3, self.entry("alice", "Zz" * 5))
        text = json.dumps([good, bad]) + repr(self.logged)
        self.assertNotIn(KEY, text)
        self.assertNotIn("Zz" * 5, text)

    def test_malformed(self):
        for body, code in [(b"", 400), (b"[1]", 400), (b"{\"name\": 1}", 400),
                           (b"\xff", 400), (b"{" + b" " * 2000 + b"}", 413)]:
            self.assertEqual(self.post(3, body)[0], code, body)
        self.assertEqual(self.names.judged, [])

    def test_eventRefuses(self):
        self.assertEqual(self.post(404, self.entry("alice", KEY)),
                         (404, {"error": "not found"}))
        code, answer = self.post(9, self.entry("alice", KEY))
        self.assertEqual((code, answer["error"]),
                         (409, "event 9 is finished"))

    def test_withoutAccounts(self):
        """
        Without accounts (C{--names open}) nobody enters from the web.
        """
        self.assertEqual(self.post(3, self.entry("alice", KEY),
                                   names=False)[0], 404)

    def test_postOnly(self):
        request = DummyRequest([b"entry"])
        request.method = b"GET"
        child = TournamentsAPI(self.web).getChild(b"3", request)
        child.render(request)
        self.assertEqual(request.responseCode, 405)
