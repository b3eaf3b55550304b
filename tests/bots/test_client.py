"""
The bot client's command line (L{hub.client.botplayer}); whole games
through the server are in L{tests.bots.test_endtoend}.
"""

import random

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.client.botplayer import (
    RENAME_SECONDS, BotPlayer, botNames, gameSeeds, main, makeParser,
    ownName, parseURL)
from hub.wire import gomoku as gomokuWire
from hub.wire import splendor as wire
from tests.client.support import connect, take


class ParseURLTests(SynchronousTestCase):

    def test_gameHostPort(self):
        """
        C{game://host:port} gives the game, the host and the port.
        """
        self.assertEqual(parseURL("gomoku://example.org:4000"),
                         ("gomoku", "example.org", 4000))
        self.assertEqual(parseURL("CHECKERS://10.0.0.1:1"),
                         ("checkers", "10.0.0.1", 1))

    def test_defaultPorts(self):
        """
        Without a port, each game's default listener is used.
        """
        self.assertEqual(parseURL("splendor://h"), ("splendor", "h", 13204))
        self.assertEqual(parseURL("checkers://h"), ("checkers", "h", 16666))
        self.assertEqual(parseURL("gomoku://h"), ("gomoku", "h", 11011))

    def test_bad(self):
        """
        An unknown game or a bad port is a L{ValueError}.
        """
        self.assertRaises(ValueError, parseURL, "chess://h:1")
        self.assertRaises(ValueError, parseURL, "gomoku://h:port")


class OptionsTests(SynchronousTestCase):

    def test_defaults(self):
        """
        Two bots, level 2, one game, a short delay.
        """
        options = makeParser().parse_args(["gomoku://h:1"])
        self.assertIsNone(ownName(options, "gomoku", {}))
        self.assertEqual((options.count, options.level, options.games,
                          options.room, options.delay),
                         (2, 2, 1, None, 0.2))

    def ownName(self, argv, kind="gomoku", environ=()):
        options = makeParser().parse_args(["%s://h:1" % (kind,)] + argv)
        return ownName(options, kind, dict(environ)), options

    def test_key(self):
        """
        With C{--key}, one bot plays C{--name} exactly, in the keyed form
        (C{--count} defaults to 1); an empty key is none: the name is
        played plain, still exactly.
        """
        name, options = self.ownName(["--name", "alice", "--key",
                                      "A1b2C3d4E5"])
        self.assertEqual((name, options.count), ("alice#A1b2C3d4E5", 1))
        name, options = self.ownName(["--name", "alice", "--key",
                                      "A1b2C3d4E5"], "checkers")
        self.assertEqual(name, "alice__A1b2C3d4E5")
        name, options = self.ownName(["--name", "robot", "--key", ""])
        self.assertEqual((name, options.key, options.count),
                         ("robot", None, 1))

    def test_keyEnv(self):
        """
        C{--key-env} takes the key from C{GAMEHUB_KEY} (unset or empty:
        none); not with C{--key}; no key is needed for Splendor.
        """
        environ = {"GAMEHUB_KEY": "Zz9Yy8Xx7W"}
        name, options = self.ownName(["--name", "bob", "--key-env"],
                                     environ=environ)
        self.assertEqual((name, options.count), ("bob#Zz9Yy8Xx7W", 1))
        name, _ = self.ownName(["--name", "bob", "--key-env"])
        self.assertEqual(name, "bob")
        name, options = self.ownName(["--key-env"], "splendor")
        self.assertEqual((name, options.count), (None, 1))
        for argv in (["--name", "bob", "--key-env", "--key", "x"],
                     ["--name", "bob", "--key-env", "--count", "2"],
                     ["--key-env"]):
            self.assertRaises(SystemExit, self.ownName, argv,
                              environ=environ)
        self.assertRaises(SystemExit, self.ownName,
                          ["--key", "A1b2C3d4E5"], "splendor")

    def test_seeds(self):
        """
        Without C{--seed} every game has its own random seed; with it,
        every game plays with that seed (a run can be replayed).
        """
        self.assertIsNone(makeParser().parse_args(["gomoku://h:1"]).seed)
        seeds = gameSeeds(None, 3, random.Random(4))
        self.assertEqual(len(set(seeds)), 3)
        self.assertNotEqual(gameSeeds(None, 3), gameSeeds(None, 3))
        self.assertEqual(gameSeeds(7, 3), [7, 7, 7])

    def test_badArguments(self):
        """
        A bad URL, a gomoku team over two, or no bots at all stop the
        client with a message before anything connects.
        """
        for argv in (["chess://h:1"], ["gomoku://h:1", "--count", "3"],
                     ["splendor://h:1", "--count", "0"],
                     ["checkers://h:1", "--name", "bad-name"],
                     ["checkers://h:1", "--name", "x" * 17]):
            self.failureResultOf(main(Clock(), *argv), SystemExit)


class BotPlayerTests(SynchronousTestCase):

    def test_stateAndBot(self):
        """
        A L{BotPlayer} has its game's client state machine and plays
        with the bot of its level.
        """
        for kind in ("gomoku", "checkers", "splendor"):
            player = BotPlayer(Clock(), kind, "h", 1, "bot_1", 3, seed=4)
            self.assertEqual(player.state.game, kind)
            self.assertEqual(player.autoplay.bot.level, 3)
            self.assertFalse(player.done.called)

    def test_splendorReadiesWhenTeamIsIn(self):
        """
        A Splendor bot of a team of 3 readies once 3 players are at the
        table; the NEW_PLAYER that announces the bot itself is not
        another player.
        """
        clock = Clock()
        player = BotPlayer(clock, "splendor", "h", 1, "bot_1", 1, team=3)
        proto, transport = connect("splendor", player.state)
        take(transport)
        proto.dataReceived(
            wire.packFrame(wire.INIT_RESP, 1, wire.initRespBody(1, []))
            + wire.packFrame(wire.NEW_PLAYER, 1)
            + wire.packFrame(wire.NEW_PLAYER, 2))
        clock.advance(0)
        self.assertEqual(take(transport), b"")
        proto.dataReceived(wire.packFrame(wire.NEW_PLAYER, 3))
        clock.advance(0)
        self.assertEqual(take(transport),
                         wire.packClientFrame(wire.PLAYER_READY, 1, None))


class NameTests(SynchronousTestCase):
    """
    Bots keep their names from game to game: the prefix and the seat.
    """

    def test_names(self):
        """
        Seat C{n} is C{prefix + n}, asked for twice (the hub may not
        have seen the last game's connection close yet); then the seats
        of the next teams, so that two processes of one level share a
        small set of names.
        """
        self.assertEqual(botNames("bot2_", 1, 2, tries=3),
                         ["bot2_1", "bot2_1", "bot2_3", "bot2_5", "bot2_7"])
        self.assertEqual(botNames("bot2_", 2, 2, tries=1)[2:], ["bot2_4"])

    def test_takenNameRetried(self):
        """
        A gomoku bot whose name is taken (C{S_PLAYER_EXISTS}) registers
        again with its next name after L{RENAME_SECONDS}.
        """
        clock = Clock()
        player = BotPlayer(clock, "gomoku", "h", 1, "bot2_1", 1, team=2,
                           otherNames=["bot2_3"])
        proto, transport = connect("gomoku", player.state)
        sent = gomokuWire.decodeMessage(take(transport)[1:-1])
        self.assertEqual(sent["name"], "bot2_1")
        proto.dataReceived(gomokuWire.encodeMessage(
            gomokuWire.resultMessage(gomokuWire.S_PLAYER_EXISTS,
                                     gomokuWire.INVALID_U64, 1)))
        clock.advance(RENAME_SECONDS)
        sent = gomokuWire.decodeMessage(take(transport)[1:-1])
        self.assertEqual((sent["msg_type"], sent["name"]),
                         (gomokuWire.MSG_REG, "bot2_3"))
        self.assertEqual(player.name, "bot2_3")
        self.assertFalse(player.done.called)

    def test_noNameLeft(self):
        """
        When every name is taken the bot fails, saying so.
        """
        player = BotPlayer(Clock(), "gomoku", "h", 1, "bot2_1", 1)
        proto, transport = connect("gomoku", player.state)
        proto.dataReceived(gomokuWire.encodeMessage(
            gomokuWire.resultMessage(gomokuWire.S_PLAYER_EXISTS,
                                     gomokuWire.INVALID_U64, 1)))
        failure = self.failureResultOf(player.done)
        self.assertIn("could not register as 'bot2_1': that name is "
                      "taken", str(failure.value))

    def test_keyNeverInTheFailure(self):
        """
        A bot whose keyed name is refused (a banned account, a wrong or
        mistyped key) fails saying the plain name only: the key, whole or
        in part, is in no line it prints.
        """
        for name in ("alice#eXgNty59Q5", "alice#eXgNty59Q", "alice__x#y"):
            player = BotPlayer(Clock(), "gomoku", "h", 1, name, 1)
            proto, transport = connect("gomoku", player.state)
            proto.dataReceived(gomokuWire.encodeMessage(
                gomokuWire.resultMessage(gomokuWire.S_PLAYER_EXISTS,
                                         gomokuWire.INVALID_U64, 1)))
            text = str(self.failureResultOf(player.done).value)
            self.assertIn("could not register as 'alice': that name is "
                          "taken", text)
            self.assertNotIn("eXgNty59Q", text)
            self.assertNotIn("#", text)

    def test_checkersNameRefused(self):
        """
        A checkers bot whose join is refused (its name may be taken in
        the room) joins again with its next name after
        L{RENAME_SECONDS}; with none left it fails, saying why.
        """
        from hub.wire import checkers as checkersWire
        clock = Clock()
        player = BotPlayer(clock, "checkers", "h", 1, "bot2_1", 1,
                           room="R", team=2, otherNames=["bot2_3"])
        proto, transport = connect("checkers", player.state)
        clock.advance(0)
        self.assertEqual(take(transport), checkersWire.encode(
            checkersWire.JOIN_ROOM_OP, "R", "bot2_1"))
        refusal = checkersWire.encode(
            checkersWire.ERROR_OP, str(checkersWire.INVALID_JOIN),
            "INVALID_JOIN: the name is taken")
        proto.dataReceived(refusal)
        clock.advance(RENAME_SECONDS)
        self.assertEqual(take(transport), checkersWire.encode(
            checkersWire.JOIN_ROOM_OP, "R", "bot2_3"))
        self.assertFalse(player.done.called)
        proto.dataReceived(refusal)
        failure = self.failureResultOf(player.done)
        self.assertIn("could not join room 'R'", str(failure.value))
