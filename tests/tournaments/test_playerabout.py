"""
An engine's C{ABOUT} on its player page (issue 35): C{/players/KIND/NAME}
shows what its brain last answered in an event of that kind (name,
version, author, country), escaped, in the page's language, with a link
to the event; C{/api/players/KIND/NAME} has it as C{about} and
C{aboutEvent}.  Over a real database (SQLite, and PostgreSQL) and a real
HTTP port.
"""

import random

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from hub.records import query
from hub.records.recorder import Recorder
from hub.tournaments import catalog, store

from tests.records import support
from tests.web.support import WebHub

#: What the brain told, markup and a hidden character in it.
ABOUT = {"name": "<script>alert(1)</script>pela", "version": "1.0",
         "author": "P. Author & co", "country": "CZ\u202e",
         "www": "example.invalid"}


class FakeDirector:
    """
    What the web face takes of a tournament director: its database, no
    engine runner, its listeners.
    """

    launcher = None

    def __init__(self, database):
        self.database = database
        self.listeners = []

    def addListener(self, listener, hears=None):
        self.listeners.append(listener)


class PlayerAboutMixin:
    """
    Two gomoku games between the engine C{pela} and C{ann}; C{pela}
    entered in two gomoku events (the later one told C{ABOUT}, the
    earlier something else) and a checkers event.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.database = support.openDatabase(self, self.databaseURL())
        recorder = Recorder(self.database, Clock())
        rng = random.Random(7)
        for _ in range(2):
            support.playRandomGame("gomoku", [recorder], rng,
                                   names=["pela", "ann"], incidents=False,
                                   guests=("pela", "ann"))
        yield recorder.whenIdle()
        run = self.database.runInteraction
        yield run(catalog.register, "pela", ["pela"], 0.0,
                  protocol="gomocup")
        self.events = []
        for kind in ("gomoku", "gomoku", "checkers", "gomoku"):
            eventId = yield run(store.createEvent, "Brains", kind,
                                "round-robin", None, None, 2, None, 0.0)
            yield run(store.enter, eventId, "pela", 0.0, engine="pela")
            self.events.append(eventId)
        yield run(store.setAbout, self.events[0], "pela", {"name": "old"})
        yield run(store.setAbout, self.events[1], "pela", ABOUT)
        yield run(store.setAbout, self.events[2], "pela",
                  {"name": "checkers"})
        # The last gomoku event has not heard it yet: no ABOUT.
        self.web = WebHub(self, query.Records(self.database),
                          director=FakeDirector(self.database))

    @defer.inlineCallbacks
    def test_page(self):
        """
        The engine's page shows its latest ABOUT of the page's kind, each
        told value escaped and isolated (its hidden character replaced),
        with the event it told it; a value it did not tell (C{www}) is
        not shown; a player that is no engine's has none.
        """
        code, _, page = yield self.web.get("/players/gomoku/pela")
        self.assertEqual(code, 200)
        text = page.decode("utf-8")
        self.assertIn('<section class="about"><h2>Engine</h2>', text)
        self.assertIn('<dt>engine</dt><dd class="name"><bdi>'
                      '&lt;script&gt;alert(1)&lt;/script&gt;pela</bdi></dd>',
                      text)
        self.assertIn('<dt>version</dt><dd class="version"><bdi>1.0'
                      '</bdi></dd>', text)
        self.assertIn('<dt>author</dt><dd class="author"><bdi>P. Author '
                      '&amp; co</bdi></dd>', text)
        self.assertIn('<dt>country</dt><dd class="country"><bdi>CZ\ufffd'
                      '</bdi></dd>', text)
        self.assertNotIn("<script>", text)
        self.assertNotIn("\u202e", text)
        self.assertNotIn("example.invalid", text)
        self.assertIn('<a href="/tournaments/%d">As its brain answered '
                      'ABOUT in event %d</a>' % (self.events[1],
                                                 self.events[1]), text)
        code, _, page = yield self.web.get("/players/gomoku/ann")
        self.assertEqual(code, 200)
        self.assertNotIn(b'class="about"', page)

    @defer.inlineCallbacks
    def test_chinese(self):
        """
        In Chinese, the section's words are the catalog's; the values
        are the brain's own.
        """
        code, _, page = yield self.web.get("/players/gomoku/pela?lang=zh")
        self.assertEqual(code, 200)
        # The page's words, not its scripts' catalog.
        text = page.decode("utf-8").split("<main>", 1)[1]
        self.assertIn('<section class="about"><h2>\u5f15\u64ce</h2>', text)
        self.assertIn('<dt>\u4f5c\u8005</dt><dd class="author"><bdi>'
                      'P. Author &amp; co</bdi></dd>', text)
        self.assertNotIn("As its brain answered", text)
        self.assertNotIn("<dt>version</dt>", text)

    @defer.inlineCallbacks
    def test_api(self):
        """
        The player's JSON carries the ABOUT kept and its event; a player
        with none has nulls.
        """
        code, data = yield self.web.getJSON("/api/players/gomoku/pela")
        self.assertEqual(code, 200)
        self.assertEqual(data["about"], ABOUT)
        self.assertEqual(data["aboutEvent"], self.events[1])
        code, data = yield self.web.getJSON("/api/players/gomoku/ann")
        self.assertEqual((data["about"], data["aboutEvent"]), (None, None))

    @defer.inlineCallbacks
    def test_latestAbout(self):
        """
        L{store.latestAbout} takes the latest event of the kind that kept
        an ABOUT for that engine entrant, and None for any other name or
        kind.
        """
        run = self.database.runInteraction
        found = yield run(store.latestAbout, "gomoku", "pela")
        self.assertEqual(found, (self.events[1], ABOUT))
        found = yield run(store.latestAbout, "checkers", "pela")
        self.assertEqual(found, (self.events[2], {"name": "checkers"}))
        for kind, name in (("splendor", "pela"), ("gomoku", "ann")):
            found = yield run(store.latestAbout, kind, name)
            self.assertIsNone(found)


class SQLitePlayerAboutTests(PlayerAboutMixin, support.SQLiteMixin,
                             TestCase):
    pass


class PostgreSQLPlayerAboutTests(PlayerAboutMixin,
                                 support.PostgreSQLMixin, TestCase):
    pass
