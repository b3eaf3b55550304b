"""
The name check (L{hub.accounts.check.NameService}) through the checkers
and gomoku protocols, on in-memory transports with a L{Clock}: keyed
names proven, impostors refused as "taken", lockouts, guests, closed
mode, bans at connect, at name time and on live connections, and the
one-time game keys of tournament engines.
"""

import copy

from twisted.internet.address import IPv4Address
from twisted.trial.unittest import SynchronousTestCase

from hub.accounts import check, guesses, names
from hub.wire import checkers as cwire
from hub.wire import gomoku as gwire

from tests.accounts.support import FakeAccounts
from tests.checkers.support import Client, Server
from tests.gomoku.support import FakeConnection, GomokuHarness
from tests.harness import RecordingTransport, ServerHarness

SECRET = b"k" * 32
ALICE_KEY = "A1b2C3d4E5"
OTHER_ADDRESS = "203.0.113.9"


def withNames(harness, mode="accounts"):
    """
    Give C{harness}'s factory a name service over L{FakeAccounts}.
    """
    accounts = FakeAccounts(SECRET)
    accounts.add("Alice", ALICE_KEY)
    service = check.NameService(accounts, harness.hub.clock,
                                harness.sessions, mode)
    service.startService()
    harness.factory.names = service
    return service, accounts


def transportFrom(host):
    return RecordingTransport(peerAddress=IPv4Address("TCP", host, 5000))


class CheckersNamesTests(SynchronousTestCase):
    """
    C{alice__KEY} in checkers.
    """

    def setUp(self):
        self.server = Server()
        self.names, self.accounts = withNames(self.server)

    def connect(self, host="127.0.0.1"):
        return Client(self.server, *ServerHarness.connect(
            self.server, transportFrom(host)))

    def test_provenNameSeenPlain(self):
        """
        Alice's own START_GAME_OP and END_GAME_OP carry her name as she
        sent it; the others' carry the registered name; her session is
        no guest's.
        """
        keyed = names.keyedName("checkers", "alice", ALICE_KEY)
        clients = [self.connect() for _ in range(2)]
        clients[0].join("r1", keyed)
        clients[1].join("r1", "bob")
        for c in clients:
            c.ready()
        own = [m for m in clients[0].received()
               if m.op == cwire.START_GAME_OP]
        other = [m for m in clients[1].received()
                 if m.op in (cwire.START_GAME_OP, cwire.JOIN_ROOM_OP,
                             cwire.PLAYER_READY_OP)]
        self.assertEqual(own[0].data1, keyed + " bob")
        self.assertEqual([(m.op, m.data1) for m in other],
                         [(cwire.PLAYER_READY_OP, "Alice"),
                          (cwire.PLAYER_READY_OP, "bob"),
                          (cwire.START_GAME_OP, "Alice bob")])
        session = clients[0].protocol.session
        self.assertEqual((session.name, session.guest, session.account),
                         ("Alice", False, "alice"))
        self.assertTrue(clients[1].protocol.session.guest)
        self.assertEqual(self.accounts.touched, ["alice"])
        self.assertEqual(self.names.proven, 1)
        clients[1].disconnect()
        for _ in range(10):
            self.server.clock.advance(10)
        ended = [m for m in clients[0].received()
                 if m.op == cwire.END_GAME_OP]
        self.assertEqual(sorted(ended[0].data1.split()),
                         sorted([keyed, "bob"]))

    def assertTaken(self, client):
        errors = [m for m in client.received() if m.op == cwire.ERROR_OP]
        self.assertEqual(errors[0].data1, str(cwire.INVALID_JOIN))
        self.assertTrue(errors[0].data2.endswith("the name is taken"))
        self.assertIsNone(self.server.lobby.roomOf(client.protocol.session))

    def test_impostors(self):
        """
        The registered name without a key (in any case), with a wrong key
        and a keyed name of no account are all "taken", and counted.
        """
        for name in ("alice", "ALICE", "alice__A1b2C3d4E6",
                     "nobody__A1b2C3d4E5"):
            client = self.connect()
            client.join("r1", name)
            self.assertTaken(client)
        self.assertEqual(
            (self.names.refused[check.TAKEN],
             self.names.refused[check.WRONG_KEY],
             self.names.refused[check.NO_ACCOUNT]), (2, 1, 1))

    def test_lockout(self):
        """
        Past the failed proofs a name allows from one address, even the
        right key is refused from there, the same way; the bucket refills
        with time; from another address the key is taken at once.
        """
        for i in range(check.NAME_BURST):
            client = self.connect(OTHER_ADDRESS)
            client.join("r1", "alice__0000000000")
            self.assertTaken(client)
        client = self.connect(OTHER_ADDRESS)
        client.join("r1", "alice__" + ALICE_KEY)
        self.server.clock.advance(guesses.MAX_DELAY)
        self.assertTaken(client)
        self.assertEqual(self.names.refused[check.LOCKED], 1)
        owner = self.connect()
        owner.join("r1", "alice__" + ALICE_KEY)
        self.server.clock.advance(guesses.MAX_DELAY)
        self.assertIsNotNone(
            self.server.lobby.roomOf(owner.protocol.session))
        self.server.clock.advance(check.NAME_REFILL_SECONDS)
        client.join("r2", "alice__" + ALICE_KEY)
        self.server.clock.advance(guesses.MAX_DELAY)
        self.assertIsNotNone(
            self.server.lobby.roomOf(client.protocol.session))

    def test_lockoutSaysNothing(self):
        """
        A locked account's name, even with the right key, gets exactly the
        bytes a keyed name of no account gets: a lockout reveals nothing
        about whether the name exists.
        """
        for i in range(check.NAME_BURST):
            client = self.connect(OTHER_ADDRESS)
            client.join("r1", "alice__0000000000")
        answers = []
        for name in ("alice", "nobod"):
            client = self.connect(OTHER_ADDRESS)
            client.join("r1", name + "__" + ALICE_KEY)
            self.server.clock.advance(guesses.MAX_DELAY)
            self.assertTaken(client)
            answers.append([(m.op, m.data1, m.data2.replace(name, "NAME"))
                            for m in client.received()])
        self.assertEqual(answers[0], answers[1])
        self.assertEqual(self.names.refused[check.LOCKED], 1)

    def test_addressLockout(self):
        """
        One address runs out of failed proofs across names.
        """
        for i in range(check.ADDRESS_BURST):
            client = self.connect(OTHER_ADDRESS)
            client.join("r1", "n{}__0000000000".format(i))
            self.assertTaken(client)
        self.accounts.add("zed", "Z" * 10)
        self.names.refresh()
        client = self.connect(OTHER_ADDRESS)
        client.join("r1", "zed__" + "Z" * 10)
        self.assertTaken(client)
        self.assertEqual(self.names.refused[check.LOCKED], 1)

    def test_closed(self):
        """
        With C{--names closed}, a guest is refused; an account is not.
        """
        self.names.mode = "closed"
        guest = self.connect()
        guest.join("r1", "bob")
        self.assertTaken(guest)
        alice = self.connect()
        alice.join("r1", "alice__" + ALICE_KEY)
        self.assertIsNotNone(self.server.lobby.roomOf(alice.protocol.session))

    def test_bans(self):
        """
        A banned address is closed at connect; a banned account is
        refused; a ban read at the next refresh closes live connections.
        """
        alice = self.connect()
        alice.join("r1", "alice__" + ALICE_KEY)
        other = self.connect(OTHER_ADDRESS)
        other.join("r2", "carl")
        self.accounts.banAddress(OTHER_ADDRESS + "/32")
        self.accounts.ban("alice")
        self.server.clock.advance(check.POLL_SECONDS)
        self.assertTrue(alice.closed)
        self.assertTrue(other.closed)
        self.assertEqual(self.names.closedByBan, 2)
        late = self.connect(OTHER_ADDRESS)
        self.assertTrue(late.closed)
        again = self.connect()
        again.join("r1", "alice__" + ALICE_KEY)
        self.assertTaken(again)
        self.assertEqual(self.names.refused[check.BANNED], 1)

    def test_notReady(self):
        """
        Before the first read every name is refused.
        """
        self.names.secret = None
        client = self.connect()
        client.join("r1", "bob")
        self.assertTaken(client)

    def test_metrics(self):
        """
        The collector counts refusals by reason and proofs.
        """
        client = self.connect()
        client.join("r1", "alice")
        families = {f.name: f for f in self.names.collector().collect()}
        refused = {s.labels["reason"]: s.value
                   for s in families["gamehub_names_refused"].samples
                   if s.name.endswith("_total")}
        self.assertEqual(refused[check.TAKEN], 1)
        self.assertEqual(refused[check.WRONG_KEY], 0)


class GomokuNamesTests(SynchronousTestCase):
    """
    C{bob#KEY} in gomoku.
    """

    def setUp(self):
        self.server = GomokuHarness()
        self.names, self.accounts = withNames(self.server)
        self.accounts.add("bob", "B" * 10)
        self.names.refresh()

    def connect(self, host="127.0.0.1"):
        return FakeConnection(*ServerHarness.connect(
            self.server, transportFrom(host)))

    def status(self, connection):
        return [m["status"] for m in connection.messages()
                if m["msg_type"] == gwire.MSG_RESULT]

    def test_guestNameFreedOnDisconnect(self):
        """
        A guest's name is taken while it is connected (status 258 for a
        second connection) and free again as soon as it disconnects, as
        before accounts.
        """
        first = self.connect()
        first.register("gus")
        self.assertEqual(self.status(first), [gwire.S_OK])
        self.assertTrue(first.protocol.session.guest)
        second = self.connect(OTHER_ADDRESS)
        second.register("gus")
        self.assertEqual(self.status(second), [gwire.S_PLAYER_EXISTS])
        first.drop()
        third = self.connect(OTHER_ADDRESS)
        third.register("gus")
        self.assertEqual(self.status(third), [gwire.S_OK])
        self.assertTrue(third.protocol.session.guest)

    def test_provenName(self):
        """
        C{bob#KEY} registers as C{bob}; the room info and list bob gets
        carry his name as sent, the other player's the plain name.
        """
        keyed = "bob#" + "B" * 10
        bob = self.connect()
        bob.register(keyed)
        self.assertEqual(self.status(bob), [gwire.S_OK])
        self.assertEqual(bob.protocol.session.name, "bob")
        carl = self.connect()
        carl.register("carl")
        carl.messages()
        bob.create("r")
        bob.messages()
        carl.join("r")
        rooms = [m["room"] for m in bob.messages()
                 if m["msg_type"] == gwire.MSG_ROOM]
        self.assertEqual((rooms[0]["owner"], rooms[0]["guest"]),
                         (keyed, "carl"))
        dave = self.connect()
        dave.register("dave")
        dave.messages()
        dave.roomList()
        seen = [m for m in dave.messages()
                if m["msg_type"] == gwire.MSG_ROOMLIST]
        self.assertEqual(seen[-1]["rooms"][0]["owner"], "bob")
        self.assertNotIn(b"B" * 10, carl.transport.value())
        self.assertNotIn(b"B" * 10, dave.transport.value())

    def test_impostors(self):
        """
        C{bob}, C{BOB} and a wrong key get status 258.
        """
        for name in ("bob", "BOB", "bob#" + "C" * 10, "ann#" + "B" * 10):
            connection = self.connect()
            connection.register(name)
            self.assertEqual(self.status(connection),
                             [gwire.S_PLAYER_EXISTS])

    def test_resumeNeedsTheSameName(self):
        """
        A resume with the token must give the name exactly as first sent.
        """
        keyed = "bob#" + "B" * 10
        bob = self.connect()
        bob.register(keyed)
        token = bob.protocol.session.token
        bob.messages()
        other = self.connect()
        other.register("bob", token)
        self.assertEqual(self.status(other), [gwire.S_PLAYER_EXISTS])
        again = self.connect()
        again.register(keyed, token)
        self.assertEqual(self.status(again), [gwire.S_OK])
        self.assertTrue(bob.closed)


class GameKeyTests(SynchronousTestCase):
    """
    The one-time keys the tournament director mints for its engines
    (L{check.GameKeys}), accepted only through the name check of their
    game's private listener (L{check.GameNameCheck}), once, until the
    game stops; the hub's public port never takes them.
    """

    ROOM = "4-1-2"

    def setUp(self):
        self.server = GomokuHarness()
        self.names, self.accounts = withNames(self.server, "closed")
        self.accounts.add("bob", "B" * 10)
        self.names.refresh()
        self.private = copy.copy(self.server.factory)
        self.private.names = self.names.forGame(self.ROOM)

    def connect(self, factory=None):
        return FakeConnection(*self.server.connectTo(
            factory or self.private))

    def test_interface(self):
        """
        The hub's name check and a game's provide L{INameCheck}; a
        game's asks the hub's of bans and plain names, and shares its
        keys.
        """
        from zope.interface.verify import verifyObject

        from hub.accounts.interfaces import INameCheck
        game = self.private.names
        verifyObject(INameCheck, self.names)
        verifyObject(INameCheck, game)
        self.assertIs(game.gameKeys, self.names.gameKeys)
        self.names.bannedAccounts["bob"] = self.accounts.now() + 60
        self.assertTrue(game.accountBanned("bob"))
        self.assertFalse(game.accountBanned("ann"))
        self.assertFalse(game.addressBanned("192.0.2.1"))
        self.assertEqual(game.plainName("gomoku", "bob"),
                         self.names.plainName("gomoku", "bob"))

    def status(self, connection):
        return [m["status"] for m in connection.messages()
                if m["msg_type"] == gwire.MSG_RESULT]

    def test_mintAndRedeem(self):
        """
        A minted key is a play key (10 letters and digits), different
        each time, and redeemed once, only for its room and name (in any
        case); a revoked one is gone.
        """
        keys = check.GameKeys()
        key = keys.mint(self.ROOM, "Alice")
        self.assertRegex(key, r"^[A-Za-z0-9]{10}$")
        self.assertNotEqual(keys.mint("4-1-3", "alice"), key)
        self.assertFalse(keys.redeem("4-1-3", "alice", key))
        self.assertFalse(keys.redeem(self.ROOM, "bob", key))
        self.assertFalse(keys.redeem(self.ROOM, "alice", "0" * 10))
        self.assertTrue(keys.redeem(self.ROOM, "alice", key))
        self.assertFalse(keys.redeem(self.ROOM, "alice", key))
        other = keys.mint(self.ROOM, "bob")
        keys.revoke(self.ROOM, "bob")
        self.assertFalse(keys.redeem(self.ROOM, "bob", other))
        self.assertEqual(len(keys), 1)

    def test_accountProven(self):
        """
        Under C{--names closed}, C{alice#GAMEKEY} on the game's private
        listener registers as the account C{Alice}, as her own key
        would; the key is then used up.
        """
        key = self.names.gameKeys.mint(self.ROOM, "Alice")
        alice = self.connect()
        alice.register("alice#" + key)
        self.assertEqual(self.status(alice), [gwire.S_OK])
        session = alice.protocol.session
        self.assertEqual((session.name, session.guest, session.account),
                         ("Alice", False, "alice"))
        self.assertEqual(self.names.gameKeysProven, 1)
        alice.protocol.transport.loseConnection()
        again = self.connect()
        again.register("alice#" + key)
        self.assertEqual(self.status(again), [gwire.S_PLAYER_EXISTS])
        self.assertEqual(self.names.refused[check.WRONG_KEY], 1)

    def test_onlyItsGame(self):
        """
        A game key is refused on the public port and on another game's
        private listener (a wrong key there), and after it is revoked.
        """
        key = self.names.gameKeys.mint(self.ROOM, "bob")
        public = self.connect(self.server.factory)
        public.register("bob#" + key)
        self.assertEqual(self.status(public), [gwire.S_PLAYER_EXISTS])
        other = copy.copy(self.server.factory)
        other.names = self.names.forGame("4-1-3")
        elsewhere = self.connect(other)
        elsewhere.register("bob#" + key)
        self.assertEqual(self.status(elsewhere), [gwire.S_PLAYER_EXISTS])
        self.names.gameKeys.revoke(self.ROOM, "bob")
        late = self.connect()
        late.register("bob#" + key)
        self.assertEqual(self.status(late), [gwire.S_PLAYER_EXISTS])
        self.assertEqual(self.names.refused[check.WRONG_KEY], 3)
        self.assertEqual(self.names.gameKeysProven, 0)

    def test_engineNamedByTheAdmin(self):
        """
        An engine whose name is no account's is admitted to its game with
        its game key, as a guest, even under C{--names closed}; the same
        name without the key is refused.
        """
        key = self.names.gameKeys.mint(self.ROOM, "robot7")
        plain = self.connect()
        plain.register("robot7")
        self.assertEqual(self.status(plain), [gwire.S_PLAYER_EXISTS])
        robot = self.connect()
        robot.register("robot7#" + key)
        self.assertEqual(self.status(robot), [gwire.S_OK])
        session = robot.protocol.session
        self.assertEqual((session.name, session.guest), ("robot7", True))

    def test_bannedAccount(self):
        """
        A banned account's engine is refused with its game key too.
        """
        self.accounts.ban("bob")
        self.names.refresh()
        key = self.names.gameKeys.mint(self.ROOM, "bob")
        bob = self.connect()
        bob.register("bob#" + key)
        self.assertEqual(self.status(bob), [gwire.S_PLAYER_EXISTS])
        self.assertEqual(self.names.refused[check.BANNED], 1)

    def test_lockoutDoesNotBlock(self):
        """
        Failed guesses that lock the name out of its own key from an
        address (in the clock's time) do not keep its engine out of its
        game.
        """
        for i in range(check.NAME_BURST):
            guess = self.connect(self.server.factory)
            guess.register("bob#" + "0" * 9 + str(i))
        owner = self.connect(self.server.factory)
        owner.register("bob#" + "B" * 10)
        self.server.clock.advance(guesses.MAX_DELAY)
        self.assertEqual(self.status(owner), [gwire.S_PLAYER_EXISTS])
        self.assertEqual(self.names.refused[check.LOCKED], 1)
        key = self.names.gameKeys.mint(self.ROOM, "bob")
        engine = self.connect()
        engine.register("bob#" + key)
        self.assertEqual(self.status(engine), [gwire.S_OK])

    def test_checkers(self):
        """
        C{NAME__GAMEKEY} in a checkers join, through the game's check.
        """
        server = Server()
        service, _ = withNames(server, "closed")
        private = copy.copy(server.factory)
        private.names = service.forGame(self.ROOM)
        key = service.gameKeys.mint(self.ROOM, "alice")
        client = Client(server, *server.connectTo(private))
        client.join(self.ROOM, "alice__" + key)
        session = client.protocol.session
        self.assertIsNotNone(server.lobby.roomOf(session))
        self.assertEqual((session.name, session.account), ("Alice", "alice"))
