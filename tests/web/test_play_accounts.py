"""
Tests for who a browser player is (L{hub.web.play}'s C{hello}): the
account of the login cookie, or a guest's name as C{--names} allows, and
bans; on a L{Clock}, in-memory connections, and a name service
(L{hub.accounts.check.NameService}) over accounts in memory.
"""

from twisted.internet.address import IPv4Address
from twisted.trial.unittest import SynchronousTestCase

from hub.accounts import check
from hub.accounts.websessions import Visitor
from hub.records.record import RecordBuilder
from hub.tables import events
from hub.web import play as playing

from tests.accounts.support import FakeAccounts
from tests.harness import RecordingTransport
from tests.web.playsupport import PlayHub, playTurns

SECRET = b"s" * 32


def nameService(mode, loaded=True):
    """
    A factory of the L{check.NameService} in C{mode} of a L{PlayHub}:
    the accounts C{Alice} and C{Mallory} (banned), no address banned.
    """
    def make(clock, sessions):
        accounts = FakeAccounts(SECRET)
        for name in ("Alice", "Mallory"):
            accounts.add(name, "K" * 10)
        service = check.NameService(accounts, clock, sessions, mode)
        if loaded:
            load(service)
        return service
    return make


def load(service, mallory=True, alice=False, networks=(), others=()):
    """
    Have C{service} read its accounts: C{Alice} (banned if C{alice}) and
    C{Mallory} (banned if C{mallory}), the accounts C{others}, the
    address bans C{networks}.
    """
    accounts = service.accounts
    for name in others:
        accounts.add(name, "K" * 10)
    for name, banned in (("Alice", alice), ("Mallory", mallory)):
        accounts.ban(name, 9e9 if banned else None)
    for cidr in networks:
        accounts.banAddress(cidr)
    if service.ready():
        service.refresh()
    else:
        accounts.nameSetup().addCallback(service.setUp)


class RecordsKept:
    """
    A table listener that builds the record of each game as the records'
    recorder does (L{RecordBuilder}), without a database.

    @ivar records: the L{hub.records.record.GameRecord}s, in order.
    """

    def __init__(self):
        self.records = []
        self._games = {}

    def tableEvent(self, table, event):
        if isinstance(event, events.GameStarted):
            self._games[table] = RecordBuilder(event, table.actions)
            return
        builder = self._games.get(table)
        if builder is None:
            return
        if isinstance(event, events.GameEnded):
            del self._games[table]
            self.records.append(builder.finish(event))
        else:
            builder.add(event)


def loggedIn(browser, name, banned=False):
    """
    C{browser}'s login cookie is C{name}'s (as L{hub.web.ws} reads it).
    """
    browser.visitor = Visitor(name, "player", banned)
    return browser


def fromAddress(browser, host):
    """
    C{browser} connects from C{host}.
    """
    browser.transport = RecordingTransport(
        peerAddress=IPv4Address("TCP", host, 50000))
    return browser


class LoggedInTests(SynchronousTestCase):
    """
    A browser logged in plays under its account, not as a guest.
    """

    mode = "accounts"

    def setUp(self):
        self.hub = PlayHub(names=nameService(self.mode))
        self.addCleanup(self.hub.stop)
        self.kept = RecordsKept()
        self.hub.lobby.addTableListener(self.kept)

    def test_welcomeSaysTheAccount(self):
        """
        The welcome names the account as registered, not a guest,
        whatever name the hello gave (or none).
        """
        for name in ("whoever", "alice", None):
            browser = loggedIn(self.hub.browser(), "Alice")
            welcome = browser.hello(name)
            self.assertEqual((welcome["name"], welcome["guest"]),
                             ("Alice", False))
            self.assertEqual(browser.player.account, "alice")
            browser.drop()

    def test_playsAndIsRecordedAsTheAccount(self):
        """
        The account's session is no guest's: its seat at the table, and
        the game's record, say so (records and leaderboards count it as
        the account's); a guest at the same hub is recorded as one.
        """
        browser = loggedIn(self.hub.browser(), "Alice")
        browser.hello(None)
        browser.send({"type": "create", "kind": "gomoku", "room": "g",
                      "seat": 0, "bots": True, "level": 1})
        session = browser.player.session
        self.assertEqual((session.name, session.guest, session.account),
                         ("Alice", False, "alice"))
        self.assertEqual([m["guest"] for m in
                          browser.last("room")["room"]["members"]
                          if m["name"] == "Alice"], [False])
        self.assertIs({s["name"]: s["guest"] for s in browser.last(
            "event", "GameStarted")["seats"]}["Alice"], False)
        players = [browser]
        if self.mode == "accounts":
            guest = self.hub.browser("bob")
            guest.send({"type": "create", "kind": "gomoku", "room": "h",
                        "seat": 0, "bots": True, "level": 1})
            self.assertEqual((guest.player.session.guest,
                              guest.player.session.account), (True, None))
            # /play marks the guest's seat (play.js's "guest" tag).
            self.assertEqual([m["guest"] for m in
                              guest.last("room")["room"]["members"]
                              if m["name"] == "bob"], [True])
            self.assertIs({s["name"]: s["guest"] for s in guest.last(
                "event", "GameStarted")["seats"]}["bob"], True)
            players.append(guest)
        playTurns(self.hub, players)
        self.assertEqual([code for b in players for code in b.errors()],
                         [])
        self.assertEqual(len(self.kept.records), len(players))
        seats = {seat.name: seat.guest for record in self.kept.records
                 for seat in record.seats}
        self.assertIs(seats["Alice"], False)
        if self.mode == "accounts":
            self.assertIs(seats["bob"], True)

    def test_checkersSessionIsTheAccount(self):
        """
        In checkers too the seat is the account's.
        """
        browser = loggedIn(self.hub.browser(), "Alice")
        browser.hello(None)
        browser.send({"type": "create", "kind": "checkers", "room": "c",
                      "players": 2, "bots": True})
        started = self.hub.recorder.ofType(events.GameStarted)[-1]
        seats = {s.name: s.guest for s in started.seats}
        self.assertIs(seats["Alice"], False)


    def test_resumeUnderTheSameLoginOnly(self):
        """
        An account's player resumes from a browser logged in as it; the
        token from a browser logged out, or logged in as another, is a
        new player's hello (the account's player is not theirs).
        """
        browser = loggedIn(self.hub.browser(), "Alice")
        token = browser.hello(None)["resume"]
        browser.send({"type": "create", "kind": "gomoku", "room": "g",
                      "seat": 0, "bots": True})
        player = browser.player
        browser.drop()
        if self.mode == "accounts":
            guest = self.hub.browser()
            welcome = guest.hello("bob", resume=token)
            self.assertEqual((welcome["name"], welcome["resumed"]),
                             ("bob", False))
        other = loggedIn(self.hub.browser(), "Mallory", banned=False)
        load(self.hub.names, mallory=False)
        welcome = other.hello(None, resume=token)
        self.assertEqual((welcome["name"], welcome["resumed"]),
                         ("Mallory", False))
        again = loggedIn(self.hub.browser(), "Alice")
        welcome = again.hello(None, resume=token)
        self.assertEqual((welcome["name"], welcome["resumed"]),
                         ("Alice", True))
        self.assertIs(again.player, player)


class ClosedLoggedInTests(LoggedInTests):
    """
    Under C{--names closed}, a browser logged in plays as under
    C{accounts}.
    """

    mode = "closed"


class GuestAccountsTests(SynchronousTestCase):
    """
    C{--names accounts}: a guest may not take an account's name.
    """

    def setUp(self):
        self.hub = PlayHub(names=nameService("accounts"))
        self.addCleanup(self.hub.stop)

    def test_accountNameRefused(self):
        """
        A guest with an account's name, in any case, is refused with
        name-taken (counted as the name check's refusals are), and is not
        a player.
        """
        for name in ("Alice", "alice", "ALICE", "mallory"):
            browser = self.hub.browser()
            self.assertIsNone(browser.hello(name))
            self.assertEqual(browser.errors(), [playing.NAME_TAKEN])
            self.assertEqual(browser.last("error")["request"], "hello")
            self.assertIsNone(browser.player)
        self.assertEqual(self.hub.names.refused[check.TAKEN], 4)
        self.assertEqual(self.hub.play.players, {})

    def test_accountNameWhenLoggedInAsIt(self):
        """
        The account's own browser, logged in, has the name.
        """
        browser = loggedIn(self.hub.browser(), "Alice")
        self.assertEqual(browser.hello("alice")["name"], "Alice")

    def test_loggedInAsAnotherAccount(self):
        """
        Logged in as one account, a browser plays as it, never under the
        name it asks for.
        """
        load(self.hub.names, others=["Carol"])
        browser = loggedIn(self.hub.browser(), "Carol")
        self.assertEqual(browser.hello("Alice")["name"], "Carol")

    def test_otherGuestNames(self):
        """
        Any other name is a guest's, and its sessions say so.
        """
        browser = self.hub.browser()
        welcome = browser.hello("bob")
        self.assertEqual((welcome["name"], welcome["guest"]), ("bob", True))
        browser.send({"type": "create", "kind": "checkers", "room": "c",
                      "players": 2})
        self.assertEqual((browser.player.session.guest,
                          browser.player.session.account), (True, None))

    def test_badNameStillBad(self):
        """
        A name the protocol refuses is bad-name before any account is
        looked at; a missing one a bad message.
        """
        browser = self.hub.browser()
        browser.hello("no spaces")
        browser.hello(None)
        self.assertEqual(browser.errors(), [playing.BAD_NAME,
                                            playing.BAD_MESSAGE])
        self.assertEqual(self.hub.names.refused[check.TAKEN], 0)

    def test_notReady(self):
        """
        Before the accounts are read, a guest is asked to try again.
        """
        hub = PlayHub(names=nameService("accounts", loaded=False))
        self.addCleanup(hub.stop)
        browser = hub.browser()
        browser.hello("bob")
        self.assertEqual(browser.errors(), [playing.UNAVAILABLE])


class GuestClosedTests(SynchronousTestCase):
    """
    C{--names closed}: no guest plays.
    """

    def setUp(self):
        self.hub = PlayHub(names=nameService("closed"))
        self.addCleanup(self.hub.stop)

    def test_guestRefused(self):
        """
        A browser not logged in is refused with login-required, with a
        name or an account's name or none, and is not a player.
        """
        for name in ("bob", "alice", None, "no spaces"):
            browser = self.hub.browser()
            browser.hello(name)
            self.assertEqual(browser.errors(), [playing.LOGIN_REQUIRED])
            self.assertIsNone(browser.player)
        self.assertEqual(self.hub.play.players, {})
        self.assertEqual(self.hub.names.refused[check.CLOSED], 3)


class OpenTests(SynchronousTestCase):
    """
    C{--names open} (no name service): as before accounts.
    """

    def setUp(self):
        self.hub = PlayHub()
        self.addCleanup(self.hub.stop)

    def test_anyValidName(self):
        """
        Any valid name is a guest's, an account's name included, and no
        session is marked (nobody is a guest where no name is checked).
        """
        browser = self.hub.browser()
        welcome = browser.hello("alice")
        self.assertEqual((welcome["name"], welcome["guest"]),
                         ("alice", True))
        browser.send({"type": "create", "kind": "checkers", "room": "c",
                      "players": 2})
        self.assertEqual((browser.player.session.guest,
                          browser.player.session.account), (False, None))


class BanTests(SynchronousTestCase):
    """
    Banned accounts and addresses are refused at hello (and at a resume).
    """

    def setUp(self):
        self.hub = PlayHub(names=nameService("accounts"))
        self.addCleanup(self.hub.stop)

    def test_bannedLogin(self):
        """
        A login cookie of a banned account (its session read with the
        ban) is refused with banned.
        """
        browser = loggedIn(self.hub.browser(), "Mallory", banned=True)
        browser.hello("mallory")
        self.assertEqual(browser.errors(), [playing.BANNED])
        self.assertIsNone(browser.player)

    def test_bannedSinceLogin(self):
        """
        An account banned after its socket opened (as the name check read
        it) is refused too.
        """
        browser = loggedIn(self.hub.browser(), "Mallory")
        browser.hello(None)
        self.assertEqual(browser.errors(), [playing.BANNED])

    def test_bannedAddress(self):
        """
        From a banned address, guests and accounts are refused; from
        another, they play.
        """
        load(self.hub.names, networks=["10.1.0.0/16"])
        guest = fromAddress(self.hub.browser(), "10.1.2.3")
        guest.hello("bob")
        account = loggedIn(fromAddress(self.hub.browser(), "10.1.2.4"),
                           "Alice")
        account.hello(None)
        self.assertEqual(guest.errors() + account.errors(),
                         [playing.BANNED, playing.BANNED])
        self.assertEqual(self.hub.names.refused[check.BANNED], 1)
        elsewhere = fromAddress(self.hub.browser(), "10.2.0.1")
        self.assertEqual(elsewhere.hello("bob")["name"], "bob")

    def test_resumeRefusedOnceBanned(self):
        """
        A player whose account was banned since cannot resume.
        """
        browser = loggedIn(self.hub.browser(), "Alice")
        token = browser.hello(None)["resume"]
        browser.send({"type": "create", "kind": "gomoku", "room": "g",
                      "seat": 0, "bots": True})
        # Mid-game: the player is kept for the grace.
        browser.drop()
        self.assertIn(playing.tokenKey(token), self.hub.play.players)
        load(self.hub.names, alice=True)
        again = loggedIn(self.hub.browser(), "Alice")
        again.hello(None, resume=token)
        self.assertEqual(again.errors(), [playing.BANNED])
        self.assertIsNone(again.player)

    def test_banClosesAPlayerAtATable(self):
        """
        A ban read while an account's browser sits in a room closes its
        connection, as the legacy ones' (and it cannot come back).
        """
        browser = loggedIn(fromAddress(self.hub.browser(), "10.3.0.1"),
                           "Alice")
        token = browser.hello(None)["resume"]
        browser.send({"type": "create", "kind": "checkers", "room": "c",
                      "players": 2})
        other = fromAddress(self.hub.browser(), "10.4.0.1")
        other.hello("bob")
        other.send({"type": "create", "kind": "checkers", "room": "d",
                    "players": 2})
        load(self.hub.names, alice=True)
        self.assertTrue(browser.transport.disconnecting)
        self.assertFalse(other.transport.disconnecting)
        self.assertEqual(self.hub.names.closedByBan, 1)
        browser.drop()
        again = loggedIn(self.hub.browser(), "Alice")
        again.hello(None, resume=token)
        self.assertEqual(again.errors(), [playing.BANNED])
