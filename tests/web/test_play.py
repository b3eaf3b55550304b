"""
Tests for L{hub.web.play}: the JSON protocol of browser play over the
shared lobby and tables, with legacy clients at the same tables, on a
L{Clock} and in-memory connections.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.games import splendor as splendorRules
from hub.protocols.gomoku_players import GomokuPlayer, GomokuTableListener
from hub.tables import events
from hub.tables.gomoku import OWNER_SEAT
from hub.web import play as playing
from hub.wire import checkers as checkersWire
from hub.wire import gomoku as gomokuWire
from hub.wire import splendor as splendorWire

from tests.web.playsupport import HubNowFeed, PlayHub, playTurns


def checkersLines(transport):
    """
    The checkers messages written to C{transport}, decoded.
    """
    return [checkersWire.decode(line) for line in
            b"".join(transport.writes).split(b"\n") if line]


def gomokuFrames(transport):
    """
    The gomoku messages written to C{transport}, decoded.
    """
    scanner = gomokuWire.FrameScanner()
    return [gomokuWire.decodeMessage(p) for p in
            scanner.feed(b"".join(transport.writes))]


class HelloTests(SynchronousTestCase):
    """
    hello, and the typed errors of messages that make no sense.
    """

    def setUp(self):
        self.hub = PlayHub()
        self.addCleanup(self.hub.stop)

    def test_welcome(self):
        """
        hello with a guest name is welcomed with the name, a resume token,
        the kinds, the checkers sizes and the bot levels, then the
        player's room (none).
        """
        browser = self.hub.browser()
        welcome = browser.hello("alice")
        self.assertEqual(welcome["name"], "alice")
        self.assertTrue(welcome["guest"])
        self.assertFalse(welcome["resumed"])
        self.assertEqual(welcome["version"], playing.PROTOCOL_VERSION)
        self.assertEqual(welcome["kinds"], ["gomoku", "checkers", "splendor"])
        self.assertEqual(welcome["checkersSizes"], [2, 3, 6])
        self.assertGreaterEqual(len(welcome["resume"]), 24)
        self.assertEqual(browser.messages[-1], {"type": "room", "room": None})

    def test_tokenNotKept(self):
        """
        The hub keeps the hash of a resume token, not the token.
        """
        browser = self.hub.browser()
        token = browser.hello("alice")["resume"]
        self.assertNotIn(token.encode(), list(self.hub.play.players))
        self.assertIn(playing.tokenKey(token), self.hub.play.players)

    def test_errors(self):
        """
        Each malformed or out-of-place message gets its typed error.
        """
        browser = self.hub.browser()
        cases = [
            ("not json", playing.BAD_JSON),
            ("[1, 2]", playing.BAD_MESSAGE),
            ('{"type": 3}', playing.BAD_MESSAGE),
            ('{"type": "dance"}', playing.UNKNOWN_TYPE),
            ('{"type": "lobby"}', playing.HELLO_FIRST),
            ('{"type": "hello", "version": 99, "name": "a"}',
             playing.BAD_VERSION),
            ('{"type": "hello", "version": 1, "name": "a b"}',
             playing.BAD_NAME),
            ('{"type": "hello", "version": 1}', playing.BAD_MESSAGE),
            ("[" * 100000, playing.BAD_JSON),
        ]
        for text, code in cases:
            browser.clear()
            self.hub.play.received(browser, text)
            self.assertEqual(browser.errors(), [code], text)
        browser.hello("alice")
        for message, code in [
                ({"type": "hello", "version": 1, "name": "b"},
                 playing.ALREADY_HELLO),
                ({"type": "act", "action": [7, 7]}, playing.NO_GAME),
                ({"type": "create", "kind": "chess", "room": "x"},
                 playing.BAD_KIND),
                ({"type": "create", "kind": "checkers", "room": "x",
                  "players": 5}, playing.BAD_SIZE),
                ({"type": "create", "kind": "checkers", "room": "",
                  "players": 2}, playing.BAD_ROOM),
                ({"type": "create", "kind": "checkers", "room": "x",
                  "players": 2, "seat": 2}, playing.BAD_SEAT),
                ({"type": "create", "kind": "checkers", "room": "x",
                  "players": True}, playing.BAD_MESSAGE),
                ({"type": "create", "kind": "gomoku", "room": "x",
                  "bots": True, "level": 7}, playing.BAD_LEVEL),
                ({"type": "join", "kind": "gomoku", "room": "nope"},
                 playing.NO_ROOM),
                ({"type": "leave"}, playing.NOT_IN_ROOM),
                ({"type": "ready"}, playing.NOT_IN_ROOM),
                ({"type": "hint"}, playing.NO_GAME)]:
            browser.clear()
            browser.send(message)
            self.assertEqual(browser.errors(), [code], message)
            self.assertEqual(browser.last("error")["request"],
                             message["type"])

    def test_nameTakenInGomoku(self):
        """
        A browser player cannot take a gomoku name a TCP player holds.
        """
        protocol, transport = self.hub.legacy("gomoku")
        protocol.dataReceived(gomokuWire.encodeMessage(
            gomokuWire.regMessage("alice", 1)))
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "gomoku", "room": "g1"})
        self.assertEqual(browser.errors(), [playing.NAME_TAKEN])
        self.assertIsNone(self.hub.lobby.room("gomoku", "g1"))


class CheckersTests(SynchronousTestCase):
    """
    A browser player at a checkers table with TCP checkers clients.
    """

    def setUp(self):
        self.hub = PlayHub()
        self.addCleanup(self.hub.stop)

    def test_mixedRoom(self):
        """
        A browser player who makes room r1 plays with the TCP clients who
        join r1: they see the browser player join and ready, the game
        starts when all three are ready, and the browser's moves reach
        them as MOVE_OP.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 3})
        room = browser.last("room")["room"]
        self.assertEqual((room["kind"], room["name"], room["players"]),
                         ("checkers", "r1", 3))
        tcp = []
        for name in ("bob", "carol"):
            protocol, transport = self.hub.legacy("checkers")
            protocol.dataReceived(checkersWire.encode(
                checkersWire.JOIN_ROOM_OP, "r1", name))
            tcp.append((protocol, transport))
        reply = checkersLines(tcp[0][1])[0]
        self.assertEqual((reply.op, reply.data1),
                         (checkersWire.JOIN_ROOM_REPLY_OP, "alice"))
        browser.send({"type": "ready"})
        self.assertIn((checkersWire.PLAYER_READY_OP, "alice"),
                      [(m.op, m.data1) for m in checkersLines(tcp[1][1])])
        for protocol, transport in tcp:
            protocol.dataReceived(checkersWire.encode(
                checkersWire.PLAYER_READY_OP, "", ""))
        started = browser.last("event", "GameStarted")
        self.assertEqual([s["name"] for s in started["seats"]],
                         ["alice", "bob", "carol"])
        self.assertEqual(started["you"], 0)
        turn = browser.last("event", "TurnStarted")
        self.assertEqual(turn["seat"], 0)
        self.assertEqual(turn["seconds"], 15.5)
        path = turn["legal"][0]
        browser.send({"type": "act", "action": path})
        self.assertEqual(browser.errors(), [])
        moves = [m for m in checkersLines(tcp[0][1])
                 if m.op == checkersWire.MOVE_OP]
        self.assertEqual(
            checkersWire.parsePath(moves[0].data2),
            tuple(tuple(cell) for cell in path))
        played = browser.last("event", "ActionPlayed")
        self.assertEqual((played["seat"], played["action"]), (0, path))
        turn = browser.last("event", "TurnStarted")
        self.assertEqual(turn["seat"], 1)
        self.assertNotIn("legal", turn)
        browser.send({"type": "act", "action": path})
        self.assertEqual(browser.errors(), [playing.NOT_YOUR_TURN])

    def test_illegal(self):
        """
        An illegal path is refused with its typed error; a malformed one
        with bad-action.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 2, "bots": True})
        browser.clear()
        browser.send({"type": "act", "action": [[0, 0], [9, 9]]})
        browser.send({"type": "act", "action": "e2e4"})
        browser.send({"type": "act", "action": [[0, True], [1, 1]]})
        browser.send({"type": "act"})
        self.assertEqual(browser.errors(), [
            playing.ILLEGAL, playing.BAD_ACTION, playing.BAD_ACTION,
            playing.BAD_MESSAGE])

    def test_botsFillSeats(self):
        """
        A room for 3 made with bots and the seat 1: a bot sits before the
        player and one after, the game starts at once, the bots play
        their seats, and the game runs to its end.
        """
        browser = self.hub.browser("alice")
        # (Level 2: the bots play at the level asked for, and random
        # level-1 bots may not finish a checkers game.)
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 3, "seat": 1, "bots": True, "level": 2})
        members = browser.last("room")["room"]["members"]
        self.assertEqual([(m["bot"], m["you"]) for m in members],
                         [(True, False), (False, True), (True, False)])
        browser.send({"type": "ready"})
        self.assertEqual(browser.last("event", "GameStarted")["you"], 1)
        playTurns(self.hub, [browser])
        ended = browser.last("event", "GameEnded")
        self.assertEqual(ended["reason"], events.NORMAL)
        self.assertEqual(len(ended["ranking"]), 3)
        taken = browser.of("event", "SeatTakenOver")
        self.assertEqual(sorted(e["seat"] for e in taken), [0, 2])
        # The room is dissolved, the bots' sessions closed.
        self.assertEqual(browser.last("room"), {"type": "room",
                                                "room": None})
        self.hub.clock.advance(1)
        self.assertEqual(list(self.hub.sessions), [])
        self.assertEqual(self.hub.lobby.allRooms(), [])

    def test_hint(self):
        """
        On the player's turn, a hint is the level-2 bot's legal choice.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 2, "bots": True})
        legal = browser.last("event", "TurnStarted")["legal"]
        browser.send({"type": "hint"})
        self.assertIn(browser.last("hint")["action"], legal)

    def test_nameOfABot(self):
        """
        A player named as the bot before their seat cannot sit: the bots
        leave the room they made, and nothing is left.
        """
        browser = self.hub.browser("bot2_1")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 3, "seat": 1, "bots": True})
        self.assertEqual(browser.errors(), [playing.NAME_IN_ROOM])
        self.assertEqual(self.hub.lobby.allRooms(), [])
        self.assertEqual(list(self.hub.sessions), [])
        self.assertIsNone(browser.player.session)

    def test_leaveBeforeStart(self):
        """
        A browser player leaving a waiting room with bots alone in it
        closes it.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 3, "seat": 2, "bots": True})
        browser.send({"type": "leave"})
        self.assertEqual(browser.last("room")["room"], None)
        self.assertEqual(self.hub.lobby.allRooms(), [])
        self.assertEqual(list(self.hub.sessions), [])


class GomokuTests(SynchronousTestCase):
    """
    Gomoku rooms shared between the browser and gomoku-battle clients.
    """

    def setUp(self):
        self.hub = PlayHub(lobbyFeed=HubNowFeed)
        self.addCleanup(self.hub.stop)
        self.tcp, self.transport = self.hub.legacy("gomoku")
        self.tcpSend(gomokuWire.regMessage("bob", 1))

    def tcpSend(self, message):
        self.tcp.dataReceived(gomokuWire.encodeMessage(message))

    def startedWithBrowser(self):
        """
        The TCP player's room C{tcp}, joined by a browser guest who
        readies: the owner starts the game.  The browser's client.
        """
        self.tcpSend(gomokuWire.roomOpMessage(gomokuWire.RO_ROOM_CREATE,
                                              "tcp", "", 3,
                                              oct=gomokuWire.CHESS_WHITE))
        browser = self.hub.browser("alice")
        browser.send({"type": "join", "kind": "gomoku", "room": "tcp"})
        browser.send({"type": "ready"})
        self.tcpSend(gomokuWire.requestMessage(gomokuWire.REQ_GAME_START, 4))
        return browser

    def test_roomListShared(self):
        """
        A room made in the browser is in msg_room_list; a room made over
        TCP is in the browser's lobby.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "gomoku", "room": "web",
                      "seat": 0})
        self.tcpSend(gomokuWire.requestMessage(gomokuWire.REQ_ROOM_LIST, 2))
        listed = gomokuFrames(self.transport)[-1]
        self.assertEqual(listed["msg_type"], gomokuWire.MSG_ROOMLIST)
        [room] = listed["rooms"]
        self.assertEqual((room["name"], room["owner"], room["oct"]),
                         ("web", "alice", gomokuWire.CHESS_BLACK))
        other = self.hub.browser("carol")
        self.tcpSend(gomokuWire.roomOpMessage(gomokuWire.RO_ROOM_CREATE,
                                              "tcp", "", 3))
        other.send({"type": "lobby"})
        names = [r["name"] for r in
                 other.last("lobby")["kinds"]["gomoku"]["rooms"]]
        self.assertEqual(names, ["web", "tcp"])

    def test_playAgainstTCP(self):
        """
        A browser guest joins a TCP player's room, readies; the owner
        starts; the browser's stones reach the TCP player as msg_move and
        the TCP player's stones reach the browser with the legal moves.
        """
        browser = self.startedWithBrowser()
        started = browser.last("event", "GameStarted")
        self.assertEqual(started["you"], 0)
        # Gomoku's legal moves are every empty point: not listed.
        turn = browser.last("event", "TurnStarted")
        self.assertEqual(turn["seat"], 0)
        self.assertNotIn("legal", turn)
        browser.send({"type": "act", "action": [7, 7]})
        move = gomokuFrames(self.transport)[-1]
        self.assertEqual((move["msg_type"], move["x"], move["y"]),
                         (gomokuWire.MSG_MOVE, 7, 7))
        self.tcpSend({"msg_type": gomokuWire.MSG_MOVE, "x": 8, "y": 8,
                      "chess": 0, "session": 5})
        played = browser.last("event", "ActionPlayed")
        self.assertEqual((played["seat"], played["action"], played["next"]),
                         (1, [8, 8], 0))
        self.assertEqual(len(browser.of("event", "TurnStarted")), 1)
        browser.send({"type": "act", "action": [8, 8]})
        self.assertEqual(browser.errors(), [playing.ILLEGAL])

    def test_legacyListenerHearsTCPOnly(self):
        """
        The gomoku adapter's table listener makes C{msg_move}s for the
        TCP player's seat only: a browser player hears no legacy frames.
        """
        browser = self.startedWithBrowser()
        table = self.hub.lobby.room("gomoku", "tcp").table
        [listener] = [each for each in table.listeners
                      if isinstance(each, GomokuTableListener)]
        browserSeat = browser.last("event", "GameStarted")["you"]
        self.assertIsNone(listener.hearing[browserSeat])
        self.assertIsInstance(listener.hearing[1 - browserSeat],
                              GomokuPlayer)

    def test_botGame(self):
        """
        A gomoku room with a bot guest starts at once; the owner plays to
        the end; the bot leaves, the owner stays.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "gomoku", "room": "g",
                      "seat": 0, "bots": True, "level": 1})
        room = self.hub.lobby.room("gomoku", "g")
        self.assertEqual(room.settings[OWNER_SEAT], 0)
        browser.send({"type": "start"})
        playTurns(self.hub, [browser])
        self.assertIsNotNone(browser.last("event", "GameEnded"))
        self.hub.clock.advance(1)
        self.assertEqual(room.names(), ["alice"])

    def test_playedText(self):
        """
        A gomoku stone's C{ActionPlayed}, encoded from its numbers, is
        the encoding of its game module's C{playedMessage}, by the
        browser's stones and the bot's, to the last (no C{next}).
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "gomoku", "room": "g",
                      "seat": 0, "bots": True, "level": 1})
        player = browser.player
        texts = []

        class Check:
            def tableEvent(self, table, event):
                if isinstance(event, events.ActionPlayed):
                    texts.append((player.game.playedText(table, event),
                                  playing.dumps(player.game.playedMessage(
                                      table, event))))
        player.table.addListener(Check())
        playTurns(self.hub, [browser])
        self.assertIsNotNone(browser.last("event", "GameEnded"))
        ours, theirs = zip(*texts)
        self.assertEqual(ours, theirs)
        played = browser.of("event", "ActionPlayed")
        self.assertEqual(len(played), len(texts))
        self.assertEqual({m["byBot"] for m in played}, {True, False})
        self.assertIsNone(played[-1]["next"])

    def test_resign(self):
        """
        Resigning at gomoku forfeits.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "gomoku", "room": "g",
                      "bots": True})
        browser.send({"type": "resign"})
        ended = browser.last("event", "GameEnded")
        self.assertEqual(ended["reason"], events.FORFEIT)
        self.assertEqual(ended["winner"], 0)


class SplendorTests(SynchronousTestCase):
    """
    A browser Splendor player is seated as a Unity client's INIT.
    """

    def setUp(self):
        self.hub = PlayHub()
        self.addCleanup(self.hub.stop)

    def test_seatedLikeInit(self):
        """
        After a Unity client's INIT, a browser player joining Splendor
        sits at the same (newest open) table, and the game starts when
        both are ready.
        """
        unity, transport = self.hub.legacy("splendor")
        unity.dataReceived(splendorWire.packClientFrame(splendorWire.INIT, 0))
        browser = self.hub.browser("alice")
        browser.send({"type": "join", "kind": "splendor"})
        room = browser.last("room")["room"]
        self.assertEqual(room["kind"], "splendor")
        self.assertEqual(len(room["members"]), 2)
        self.assertEqual(room["name"],
                         self.hub.lobby.roomOf(unity.session).name)
        unity.dataReceived(splendorWire.packClientFrame(
            splendorWire.PLAYER_READY, unity.session.id))
        browser.send({"type": "ready"})
        started = browser.last("event", "GameStarted")
        self.assertEqual(set(started["position"]), {"nobles", "board"})
        table = self.hub.lobby.roomOf(unity.session).table
        self.assertIsNotNone(table)

    def test_botsAndDiscardToTheEnd(self):
        """
        A browser player with two bots plays a whole Splendor game,
        through its discards and noble choices (legal actions given with
        each prompt).
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "join", "kind": "splendor"})
        browser.send({"type": "bots", "count": 2, "level": 1})
        browser.send({"type": "ready"})
        self.assertIsNotNone(browser.last("event", "GameStarted"))
        playTurns(self.hub, [browser], limit=20000)
        self.assertIsNotNone(browser.last("event", "GameEnded"))
        for prompt in (browser.of("event", "DiscardRequired")
                       + browser.of("event", "NobleOffered")):
            self.assertTrue(prompt["legal"])

    def test_blindReserveSecret(self):
        """
        A blind reserve tells its player the card drawn, and the others
        only the deck.
        """
        first, second = self.hub.browser("alice"), self.hub.browser("bob")
        for browser in (first, second):
            browser.send({"type": "join", "kind": "splendor"})
        for browser in (first, second):
            browser.send({"type": "ready"})
        mover = [b for b in (first, second)
                 if b.player.seat == b.player.table.game.currentSeat][0]
        other = second if mover is first else first
        legal = mover.last("event", "TurnStarted")["legal"]
        blind = [a for a in legal
                 if a["kind"] == splendorRules.FOLD_CARD_UNKNOWN][0]
        mover.send({"type": "act", "action": blind})
        mine = mover.last("event", "ActionPlayed")
        theirs = other.last("event", "ActionPlayed")
        self.assertEqual(mine["action"], blind)
        self.assertEqual(theirs["action"], blind)
        self.assertGreater(mine["drawn"], 0)
        self.assertNotIn("drawn", theirs)
        self.assertEqual(mine["golden"], theirs["golden"])

    def test_viewAndHand(self):
        """
        Splendor's events to a browser player carry the table as the
        spectators see it (C{view}) and the player's own reserved cards
        face up (C{hand}); the other players' reserved cards stay face
        down in the view.
        """
        first, second = self.hub.browser("alice"), self.hub.browser("bob")
        for browser in (first, second):
            browser.send({"type": "join", "kind": "splendor"})
        for browser in (first, second):
            browser.send({"type": "ready"})
        started = first.last("event", "GameStarted")
        self.assertEqual(len(started["view"]["players"]), 2)
        self.assertEqual(started["hand"], [])
        mover = [b for b in (first, second)
                 if b.player.seat == b.player.table.game.currentSeat][0]
        other = second if mover is first else first
        seat = mover.player.seat
        legal = mover.last("event", "TurnStarted")["legal"]
        reserve = [a for a in legal
                   if a["kind"] == splendorRules.FOLD_CARD][0]
        mover.send({"type": "act", "action": reserve})
        self.assertEqual(
            [card["id"] for card in mover.last("event", "TurnStarted")[
                "hand"]], [reserve["card"]])
        seen = other.last("event", "TurnStarted")
        self.assertEqual(seen["view"]["players"][seat]["reserved"],
                         [{"level": seen["view"]["players"][seat][
                             "reserved"][0]["level"]}])
        self.assertEqual(seen["hand"], [])
        self.assertEqual(seen["view"]["toMove"], seen["seat"])

    def test_actionCodec(self):
        """
        A Splendor action goes to JSON and back unchanged.
        """
        action = splendorRules.Action(
            splendorRules.GET_GEMS, 0, (("diamond", 1), ("ruby", 1),
                                        ("emerald", 1))).canonical()
        value = playing.encodeAction("splendor", action)
        self.assertEqual(playing.decodeAction("splendor", value), action)


class ReconnectTests(SynchronousTestCase):
    """
    A dropped connection keeps the seat for the grace; a hello with the
    resume token takes it back.
    """

    def setUp(self):
        self.hub = PlayHub(graceSeconds=30, turnSeconds=120)
        self.addCleanup(self.hub.stop)
        self.browser = self.hub.browser()
        self.token = self.browser.hello("alice")["resume"]
        self.browser.send({"type": "create", "kind": "checkers",
                           "room": "r1", "players": 2, "bots": True,
                           "seat": 1})
        self.table = self.browser.player.table

    def test_resume(self):
        """
        A new connection with the token is the same player in the same
        seat, and is sent the game's events so far.
        """
        sentBefore = [m for m in self.browser.messages
                      if m["type"] == "event"]
        self.browser.drop()
        self.hub.clock.advance(10)
        again = self.hub.browser()
        welcome = again.hello("whoever", resume=self.token)
        self.assertTrue(welcome["resumed"])
        self.assertEqual(welcome["name"], "alice")
        replayed = [m for m in again.messages if m["type"] == "event"]
        self.assertEqual(replayed[:len(sentBefore)], sentBefore)
        self.assertIs(again.player.table, self.table)
        self.assertEqual(again.player.seat, 1)
        self.hub.clock.advance(60)
        self.assertNotIn(1, self.table.departed)

    def test_resumeClock(self):
        """
        A resumed connection is told, after the events so far, the turn
        under way with the seconds left now on its clock (the replayed
        C{TurnStarted} says those of when it was first sent).
        """
        for _ in range(20):
            turn = self.browser.last("event", "TurnStarted")
            if turn["seat"] == 1:
                break
            self.hub.clock.advance(0.5)
        self.assertEqual(turn["seat"], 1)
        self.browser.drop()
        self.hub.clock.advance(10)
        again = self.hub.browser()
        again.hello("alice", resume=self.token)
        turns = again.of("event", "TurnStarted")
        self.assertEqual(turns[-2], turn)
        self.assertEqual(turns[-1]["seat"], 1)
        self.assertEqual(turns[-1]["seconds"], turn["seconds"] - 10)
        self.assertEqual(turns[-1]["legal"], turn["legal"])
        self.assertIs(again.messages[-1], turns[-1])
        # Not kept: the next resume hears the game's events, then a
        # fresh clock again.
        again.drop()
        self.hub.clock.advance(5)
        third = self.hub.browser()
        third.hello("alice", resume=self.token)
        turns = third.of("event", "TurnStarted")
        self.assertEqual(turns[-2], turn)
        self.assertEqual(turns[-1]["seconds"], turn["seconds"] - 15)

    def test_resumeClockless(self):
        """
        Without a turn clock (gomoku's rooms), nothing is added to the
        events sent again.
        """
        hub = PlayHub()
        self.addCleanup(hub.stop)
        browser = hub.browser()
        token = browser.hello("bob")["resume"]
        browser.send({"type": "create", "kind": "gomoku", "room": "g",
                      "bots": True, "seat": 0})
        sent = [m for m in browser.messages if m["type"] == "event"]
        browser.drop()
        again = hub.browser()
        again.hello("bob", resume=token)
        events = [m for m in again.messages if m["type"] == "event"]
        self.assertEqual(events[:len(sent)], sent)
        self.assertNotIn("TurnStarted",
                         [m["event"] for m in events[len(sent):]])

    def test_reloadWhileConnected(self):
        """
        A second connection with the token takes over; the first is
        closed.
        """
        again = self.hub.browser()
        again.hello("alice", resume=self.token)
        self.assertTrue(self.browser.closed)
        self.browser.drop()
        self.assertIs(again.player.table, self.table)
        self.hub.clock.advance(60)
        self.assertNotIn(1, self.table.departed)

    def test_graceExpires(self):
        """
        Past the grace, the seat is dropped by the table's rules, and the
        token resumes nothing.
        """
        self.browser.drop()
        self.hub.clock.advance(29)
        self.assertFalse(self.table.over)
        self.hub.clock.advance(2)
        self.assertIn(1, self.table.departed)
        # Without takeover, the departed seat forfeits at its turn (now).
        self.assertEqual(self.table.ended.reason, events.FORFEIT)
        self.assertEqual(self.table.ended.winner, 0)
        again = self.hub.browser()
        again.hello("alice2", resume=self.token)
        self.assertFalse(again.last("welcome")["resumed"])


class EndedAwayTests(SynchronousTestCase):
    """
    A player whose game ends while away hears how it ended on coming
    back within the grace.
    """

    def test_endedAway(self):
        hub = PlayHub(graceSeconds=30)
        self.addCleanup(hub.stop)
        browser = hub.browser()
        token = browser.hello("alice")["resume"]
        protocol, transport = hub.legacy("gomoku")
        protocol.dataReceived(gomokuWire.encodeMessage(
            gomokuWire.regMessage("bob", 1)))
        browser.send({"type": "create", "kind": "gomoku", "room": "g",
                      "seat": 0})
        protocol.dataReceived(gomokuWire.encodeMessage(
            gomokuWire.roomOpMessage(gomokuWire.RO_ROOM_JOIN, "g", "", 2)))
        protocol.dataReceived(gomokuWire.encodeMessage(
            gomokuWire.stateMessage(gomokuWire.PLAYER_STATE_READY, 3)))
        browser.send({"type": "start"})
        browser.send({"type": "act", "action": [7, 7]})
        # The TCP player drops; then alice; bob's grace runs out first:
        # alice wins by forfeit while away.
        protocol.connectionLost(None)
        hub.clock.advance(20)
        browser.drop()
        hub.clock.advance(11)
        again = hub.browser()
        again.hello("alice", resume=token)
        self.assertTrue(again.last("welcome")["resumed"])
        ended = again.last("event", "GameEnded")
        self.assertEqual((ended["reason"], ended["winner"]),
                         (events.FORFEIT, 0))


class TakeoverTests(SynchronousTestCase):
    """
    With C{--takeover bot}, a closed tab's seat is played by a bot once
    the grace runs out.
    """

    def test_closedTabTakenOver(self):
        """
        A browser player at a checkers table with two TCP players closes
        the tab: the seat is kept for the grace, then a bot plays it.
        """
        hub = PlayHub(graceSeconds=30, takeover="bot", turnSeconds=120)
        self.addCleanup(hub.stop)
        browser = hub.browser("alice")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 3})
        for name in ("bob", "carol"):
            protocol, transport = hub.legacy("checkers")
            protocol.dataReceived(checkersWire.encode(
                checkersWire.JOIN_ROOM_OP, "r1", name))
            protocol.dataReceived(checkersWire.encode(
                checkersWire.PLAYER_READY_OP, "", ""))
        browser.send({"type": "ready"})
        table = browser.player.table
        browser.drop()
        hub.clock.advance(29)
        self.assertEqual(hub.recorder.ofType(events.SeatTakenOver), [])
        hub.clock.advance(1)
        self.assertIn(0, table.departed)
        self.assertEqual(table.ended, None)
        # Seat 0 is to move: its bot moves after its delay.
        hub.clock.advance(1)
        [taken] = hub.recorder.ofType(events.SeatTakenOver)
        self.assertEqual(taken.seat, 0)
        [played] = hub.recorder.ofType(events.ActionPlayed)
        self.assertEqual((played.seat, played.byBot), (0, True))


class BoardTests(SynchronousTestCase):
    """
    What the boards of C{/play} are drawn from besides the moves: which
    seats are bots from the start (so a later takeover is told apart),
    the game's page on the web face, and the turn clock.
    """

    def test_roomBotsMarked(self):
        """
        C{GameStarted} says which seats the room's bots play from the
        start; a TCP player's seat is no bot's.
        """
        hub = PlayHub()
        self.addCleanup(hub.stop)
        browser = hub.browser("alice")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 3, "seat": 1, "bots": True})
        started = browser.last("event", "GameStarted")
        self.assertEqual([s["bot"] for s in started["seats"]],
                         [True, False, True])
        mixed = hub.browser("bob")
        mixed.send({"type": "create", "kind": "checkers", "room": "r2",
                    "players": 2})
        protocol, transport = hub.legacy("checkers")
        protocol.dataReceived(checkersWire.encode(
            checkersWire.JOIN_ROOM_OP, "r2", "carol"))
        protocol.dataReceived(checkersWire.encode(
            checkersWire.PLAYER_READY_OP, "", ""))
        mixed.send({"type": "ready"})
        started = mixed.last("event", "GameStarted")
        self.assertEqual([(s["name"], s["bot"]) for s in started["seats"]],
                         [("bob", False), ("carol", False)])

    def test_gameId(self):
        """
        C{GameStarted} names the game's id on the web face, whose page
        (C{/games/ID}) shows it live and then its replay; without the
        web face's feed, null.
        """
        hub = PlayHub(spectating=True)
        self.addCleanup(hub.stop)
        browser = hub.browser("alice")
        browser.send({"type": "create", "kind": "gomoku", "room": "g1",
                      "bots": True})
        started = browser.last("event", "GameStarted")
        [live] = hub.spectating.running()
        self.assertEqual(started["game"], live.id)
        self.assertIs(live.table, browser.player.table)
        bare = PlayHub()
        self.addCleanup(bare.stop)
        other = bare.browser("bob")
        other.send({"type": "create", "kind": "gomoku", "room": "g1",
                    "bots": True})
        self.assertIsNone(other.last("event", "GameStarted")["game"])

    def test_turnClock(self):
        """
        Each C{TurnStarted} of a checkers game says the seconds left on
        the table's turn clock: its turn seconds and grace.
        """
        hub = PlayHub(turnSeconds=40)
        self.addCleanup(hub.stop)
        browser = hub.browser("alice")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 2, "bots": True, "level": 1})
        table = browser.player.table
        self.assertEqual(browser.last("event", "TurnStarted")["seconds"],
                         40 + table.options.turnGrace)
        browser.send({"type": "act", "action": browser.last(
            "event", "TurnStarted")["legal"][0]})
        # The bot's turn, then ours again after its delay.
        turns = browser.of("event", "TurnStarted")
        self.assertEqual(turns[-1]["seat"], 1)
        self.assertEqual(turns[-1]["seconds"], 40 + table.options.turnGrace)
