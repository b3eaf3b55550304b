"""
L{hub.web.live} and L{hub.web.views}: the spectators' feed over fake
tables of every kind, with a L{Clock}.
"""

import random

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.records import notation
from hub.tables import events
from hub.web import views
from hub.web.live import HEARS, WATCHED, Spectating
from tests.web.fakes import FakeTable


def play(kind, names, spectating, clock, seed=3, limit=400):
    table = FakeTable(kind, "t-" + kind, names, clock, seed)
    table.addListener(spectating, HEARS)
    table.start()
    rng = random.Random(seed)
    plies = 0
    while not table.over and plies < limit:
        table.playOne(rng)
        plies += 1
    return table, plies


class SpectatingTests(SynchronousTestCase):
    """
    The feed keeps each game's view, moves, turn and result.
    """

    def test_everyKindReplays(self):
        """
        The replay of a game ends on the position the table ended on, and
        has one step per action plus the first position.
        """
        clock = Clock()
        spectating = Spectating(clock)
        for kind, names in (("gomoku", ["a", "b"]),
                            ("checkers", ["a", "b", "c"]),
                            ("splendor", ["a", "b", "c", "d"])):
            table, plies = play(kind, names, spectating, clock)
            [game] = [g for g in spectating.games.values()
                      if g.kind == kind]
            self.assertEqual(len(game.moves), plies)
            self.assertEqual(game.view, views.viewOf(kind, table.game))
            replay = game.replay()
            self.assertEqual(len(replay["steps"]), plies + 1)
            self.assertEqual(replay["steps"][-1], game.view)
            self.assertEqual(replay["moves"], game.moves)

    def test_result(self):
        """
        A finished game has its result and no table any more; it leaves
        the running games.
        """
        clock = Clock()
        spectating = Spectating(clock)
        table, _ = play("gomoku", ["ann", "bob"], spectating, clock)
        [game] = spectating.games.values()
        self.assertTrue(game.over)
        self.assertIsNone(game.table)
        self.assertEqual(spectating.running(), [])
        self.assertEqual(game.result["winner"], table.ended.winner)
        self.assertEqual(game.result["winnerName"],
                         ["ann", "bob"][table.ended.winner])

    def test_finishedBounded(self):
        """
        Only the last C{maxFinished} finished games are kept.
        """
        clock = Clock()
        spectating = Spectating(clock, maxFinished=2)
        for seed in range(5):
            play("gomoku", ["a", "b"], spectating, clock, seed)
        self.assertEqual(list(spectating.games), ["live-4", "live-5"])

    def test_finishedActionsBounded(self):
        """
        The finished games kept hold at most C{maxFinishedActions}
        actions in all: the oldest are forgotten first.
        """
        clock = Clock()
        plies = [play("gomoku", ["a", "b"], Spectating(clock), clock,
                      seed)[1] for seed in range(4)]
        spectating = Spectating(clock,
                                maxFinishedActions=plies[2] + plies[3])
        for seed in range(4):
            play("gomoku", ["a", "b"], spectating, clock, seed)
        self.assertEqual(list(spectating.games), ["live-3", "live-4"])

    def test_forgottenIds(self):
        """
        L{Spectating.forgotten} tells the games it followed and forgot
        from those it holds and those it never had.
        """
        clock = Clock()
        spectating = Spectating(clock, maxFinished=1)
        self.assertFalse(spectating.forgotten("live-1"))
        for seed in range(3):
            play("gomoku", ["a", "b"], spectating, clock, seed)
        self.assertEqual(
            [spectating.forgotten(gameId) for gameId in (
                "live-0", "live-1", "live-2", "live-3", "live-4", "3",
                "live-", "live-x", "other-1")],
            [False, True, True, False, False, False, False, False, False])

    def test_turnClock(self):
        """
        The turn carries the seconds left on its clock.
        """
        clock = Clock()
        spectating = Spectating(clock)
        from hub.tables.base import TableOptions
        table = FakeTable("checkers", "t", ["a", "b"], clock,
                          options=TableOptions(turnSeconds=15))
        table.addListener(spectating, HEARS)
        table.start()
        [game] = spectating.games.values()
        clock.advance(5)
        self.assertEqual(game.turnJSON(), {"seat": 0, "remaining": 10.0})


class Recording:
    """
    A stream that keeps what is written to it.
    """

    def __init__(self):
        self.data = []
        self.finished = False

    def write(self, data):
        self.data.append(data)

    def finish(self):
        self.finished = True


def frames(data):
    """
    The C{(event, data)} pairs of the SSE frames in C{data}, each with
    its payload as text.
    """
    found = []
    for frame in data.split(b"\n\n")[:-1]:
        event, payload = frame.split(b"\n")
        found.append((event[len(b"event: "):].decode(),
                      payload[len(b"data: "):].decode()))
    return found


class FramesTests(SynchronousTestCase):
    """
    The frames spliced from encoded move texts are what encoding the whole
    message would give.
    """

    def test_spliced(self):
        """
        A spectator who joins mid-game gets the snapshot, then every
        action with its move, byte for byte as L{sseFrame} of the same
        data; games nobody watches make no frames.
        """
        import json
        from hub.web.stream import sseFrame
        for kind, names in (("gomoku", ["a", "b"]),
                            ("checkers", ["a", "b", "c"]),
                            ("splendor", ["a", "b", "c", "d"])):
            clock = Clock()
            spectating = Spectating(clock)
            table = FakeTable(kind, "t-" + kind, names, clock, 5)
            table.addListener(spectating, HEARS)
            table.start()
            [game] = spectating.games.values()
            rng = random.Random(5)
            for _ in range(6):
                table.playOne(rng)
            self.assertEqual(game._moveTexts, [])
            self.assertEqual(game.snapshotFrame(),
                             sseFrame("snapshot", game.snapshot()))
            stream = Recording()
            game.addStream(stream)
            plies = 6
            while not table.over and plies < 40:
                table.playOne(rng)
                plies += 1
            game.fanout.flush()
            sent = frames(b"".join(stream.data))
            self.assertEqual(sent[0][0], "snapshot")
            actions = [json.loads(payload) for event, payload in sent
                       if event == "action"]
            self.assertEqual([a["move"] for a in actions],
                             game.moves[6:plies])
            for event, payload in sent:
                self.assertEqual(
                    sseFrame(event, json.loads(payload)),
                    ("event: %s\ndata: %s\n\n" % (event, payload)).encode())


class MoveTextTests(SynchronousTestCase):
    """
    L{live.moveText} is the encoded L{replay.moveJSON}.
    """

    def test_gomokuTemplate(self):
        """
        A gomoku move from its template is the text L{encodeJSON} makes
        of the move's JSON, whoever played it; other actions and times
        take the encoder's path.
        """
        from hub.tables.events import ActionPlayed
        from hub.web import live, replay
        from hub.web.stream import encodeJSON
        for action, byBot, at in (((7, 7), False, 1796109898.675463),
                                  ((0, 14), True, 0.1), ((14, 0), 0, 12.0),
                                  ((3, 4), False, 5)):
            event = ActionPlayed(seat=1, action=action, byBot=byBot,
                                 detail=None, at=at)
            self.assertEqual(
                live.moveText("gomoku", event, 9),
                encodeJSON(replay.moveJSON("gomoku", event, 9)))


class ViewTests(SynchronousTestCase):
    """
    What spectators see of each game.
    """

    def test_gomokuCells(self):
        """
        The web names cells as the records do: a-o, rows from the bottom.
        """
        for x, y in ((7, 7), (0, 0), (14, 14), (8, 6)):
            self.assertEqual(views.gomokuCell(x, y),
                             notation.action("gomoku", [x, y]))
        self.assertEqual(views.gomokuCell(7, 7), "h8")
        self.assertEqual(views.gomokuCell(0, 0), "a15")
        self.assertEqual(views.gomokuCell(14, 14), "o1")

    def test_gomokuFive(self):
        """
        A gomoku view marks the stones of the five the last stone made
        (a stone closing two rows marks both), and only then.
        """
        from hub.games.gomoku import GomokuGame
        game = GomokuGame()
        for x in range(4):
            game.apply(0, (x, 7))
            self.assertEqual(views.gomokuView(game)["five"], [])
            game.apply(1, (x, 0))
        game.apply(0, (4, 7))
        self.assertEqual(views.gomokuView(game)["five"],
                         [[x, 7] for x in range(5)])
        cross = GomokuGame()
        black = [(0, 7), (1, 7), (2, 7), (3, 7), (4, 3), (4, 4), (4, 5),
                 (4, 6)]
        for i, cell in enumerate(black):
            cross.apply(0, cell)
            cross.apply(1, (2 * i, 14))
        cross.apply(0, (4, 7))
        self.assertTrue(cross.isOver)
        self.assertEqual(views.gomokuView(cross)["five"],
                         [[x, 7] for x in range(5)] +
                         [[4, y] for y in range(3, 7)])

    def test_splendorHidesDecks(self):
        """
        A Splendor view has the decks' sizes, not their cards, and the
        reserved cards' levels only.
        """
        from tests.web.fakes import newGame
        game = newGame("splendor", 2)
        game.apply(0, ("fold_card_unknown", 10002, ()))
        view = views.splendorView(game)
        self.assertEqual(view["decks"], [len(d) for d in game.decks])
        self.assertEqual(view["players"][0]["reserved"], [{"level": 2}])
        self.assertEqual(views.describeAction(
            "splendor", ("fold_card_unknown", 10002, ())),
            "reserved a card from the level-2 deck")

    def test_splendorGemCounts(self):
        """
        Two gems of a colour read "emerald ×2"; gems given back are
        listed with commas.
        """
        self.assertEqual(views.describeAction(
            "splendor", ("get_gems", 0, (("emerald", 2),))),
            "took emerald \N{MULTIPLICATION SIGN}2")
        self.assertEqual(views.describeAction(
            "splendor", ("discard_gems", 0, (("ruby", 1), ("onyx", 1)))),
            "gave back ruby, onyx")

    def test_checkersNotation(self):
        """
        A checkers move reads in the hub's notation (docs/games.md), not
        as the board's x,y.
        """
        self.assertEqual(views.describeAction(
            "checkers", ((4, -4), (4, -6))), "i5-c3")

    def test_splendorInWords(self):
        """
        Each Splendor action reads as a person says it: a bought card's
        level, colour and points, not its number (card 63 is a level-2
        obsidian card of 1 point, card 90 a level-3 one of 3).
        """
        from hub.games import splendor
        card = splendor.CARDS[90]
        cases = [
            (("buy_card", 63, ()), "bought a level-2 obsidian card "
             "(1 point)"),
            (("buy_card", 90, ()), "bought a level-3 {} card ({} points)"
             .format(notation.GEM_WORD[splendor.GEMS[card.bonus]],
                     card.points)),
            (("buy_card", 6, ()), "bought a level-1 {} card".format(
                notation.GEM_WORD[splendor.GEMS[splendor.CARDS[6].bonus]])),
            (("fold_card", 63, (("golden", 1),)),
             "reserved a level-2 obsidian card"),
            (("get_gems", 0, (("diamond", 1), ("ruby", 1),
                              ("emerald", 1))),
             "took diamond, ruby, emerald"),
            (("discard_gems", 0, (("golden", 1),)), "gave back gold"),
            (("get_noble", 3, ()), "was visited by a noble (3 points)"),
        ]
        self.assertEqual(splendor.CARDS[6].points, 0)
        for action, text in cases:
            self.assertEqual(views.describeAction("splendor", action), text)
            self.assertNotIn("#", text)

    def test_splendorWordsTranslated(self):
        """
        A Splendor move's words (L{views.actionWords}) read in Chinese
        through the web catalog, gem names included; the other kinds'
        texts need none.
        """
        from hub.web.i18n import translator
        zh = translator("zh")
        words = views.actionWords("splendor", ("buy_card", 63, ()))
        self.assertEqual(notation.wordsText(words, zh),
                         "\u4e70\u4e86\u4e00\u5f202\u7ea7"
                         "\u9ed1\u66dc\u77f3\u5361\uff081 \u5206\uff09")
        words = views.actionWords(
            "splendor", ("get_gems", 0, (("ruby", 2),)))
        self.assertEqual(notation.wordsText(words, zh),
                         "\u62ff\u4e86\u7ea2\u5b9d\u77f3 \u00d72")
        self.assertIsNone(views.actionWords("gomoku", (7, 7)))


def gomokuTable(clock, spectating, name="g"):
    """
    A real L{hub.tables.gomoku.GomokuTable} followed by C{spectating}: it
    announces the first turn only, as the hub's tables do.
    """
    from hub.tables.events import Seat
    from hub.tables.gomoku import GomokuTable
    seats = [Seat(0, "ann", 1, "black", False),
             Seat(1, "bob", 2, "white", False)]
    table = GomokuTable(name, seats, clock)
    table.addListener(spectating, HEARS)
    table.start()
    return table


# Nine moves after which black has five in a row.
BLACK_WINS = [(x, row) for x in range(5) for row in (0, 1)][:9]


def playGomoku(table, moves):
    """
    Play C{moves} (cells) in turn.
    """
    for cell in moves:
        table.act(table.game.currentSeat, cell)


def toldFeed(clock):
    """
    A feed that notes the type of each event it is told: C{(feed,
    types)}.
    """
    spectating = Spectating(clock)
    told = []
    heard = spectating.tableEvent
    spectating.tableEvent = lambda table, event: (
        told.append(type(event)), heard(table, event))
    return spectating, told


class HeldBackMovesTests(SynchronousTestCase):
    """
    A watched gomoku game frames its moves once per write of its fan-out:
    the frames are those of encoding each action whole, in order, never
    twice, and before what follows them.
    """

    def watched(self):
        """
        A gomoku game with one spectator: C{(clock, table, game,
        stream)}.
        """
        clock = Clock()
        spectating = Spectating(clock)
        table = gomokuTable(clock, spectating)
        game = spectating.gameOf(table)
        stream = Recording()
        game.addStream(stream)
        return clock, table, game, stream

    def actions(self, stream):
        import json
        return [json.loads(payload) for event, payload
                in frames(b"".join(stream.data)) if event == "action"]

    def test_framedAtTheWrite(self):
        """
        Moves make no frame when played; the next write carries one
        C{action} frame per move, each the bytes L{sseFrame} makes of
        its move and the turn after it.
        """
        from hub.web.stream import sseFrame
        clock, table, game, stream = self.watched()
        playGomoku(table, [(7, 7), (0, 0), (7, 8)])
        self.assertEqual(len(stream.data), 1)
        clock.advance(0)
        self.assertEqual(len(stream.data), 2)
        expected = b"".join(
            sseFrame("action", {"move": move,
                                "turn": {"seat": 1 - move["seat"],
                                         "remaining": None}})
            for move in game.moves)
        self.assertEqual(stream.data[1], expected)

    def test_lastMoveNoTurn(self):
        """
        The move that ends the game says it is nobody's turn, and comes
        before the C{end} frame.
        """
        clock, table, game, stream = self.watched()
        playGomoku(table, BLACK_WINS)
        self.assertTrue(table.over)
        game.fanout.flush()
        sent = frames(b"".join(stream.data))
        self.assertEqual([event for event, _ in sent],
                         ["snapshot"] + ["action"] * 9 + ["end"])
        actions = self.actions(stream)
        self.assertIsNone(actions[-1]["turn"])
        self.assertEqual([a["move"]["ply"] for a in actions],
                         list(range(1, 10)))
        self.assertTrue(stream.finished)

    def test_turnsHeardOnlyWatched(self):
        """
        The feed hears no action, turn or card of a timed checkers game;
        a spectator who comes mid-turn sees the turn's clock all the same
        (the table keeps the turn), then each action and turn.
        """
        from hub.tables.base import TableOptions
        clock = Clock()
        spectating, told = toldFeed(clock)
        table = FakeTable("checkers", "t", ["a", "b"], clock,
                          options=TableOptions(turnSeconds=15))
        table.addListener(spectating, HEARS)
        table.start()
        rng = random.Random(5)
        for _ in range(4):
            table.playOne(rng)
        clock.advance(5)
        [game] = spectating.games.values()
        self.assertEqual(game.turnJSON(),
                         {"seat": table.game.currentSeat, "remaining": 10.0})
        self.assertEqual(set(told) & set(WATCHED), set())
        stream = Recording()
        game.addStream(stream)
        table.playOne(rng)
        game.fanout.flush()
        self.assertEqual(
            [event for event, _ in frames(b"".join(stream.data))],
            ["snapshot", "action", "turn"])
        self.assertEqual(set(told) & set(WATCHED), set())

    def test_onlyWatchedGamesHearActions(self):
        """
        The feed is not told of any action; a game hears its table's
        actions itself while someone watches it, from the first stream
        to the last one's leaving, and a stream that comes later gets
        the moves after it came.
        """
        clock = Clock()
        spectating, told = toldFeed(clock)
        table = gomokuTable(clock, spectating)
        game = spectating.gameOf(table)
        playGomoku(table, [(7, 7), (0, 0)])
        self.assertEqual(table.listeners, [spectating])
        first = Recording()
        game.addStream(first)
        self.assertEqual(table.listeners, [spectating, game])
        playGomoku(table, [(7, 8)])
        game.fanout.flush()
        game.removeStream(first)
        self.assertEqual(table.listeners, [spectating])
        playGomoku(table, [(0, 1)])
        second = Recording()
        game.addStream(second)
        playGomoku(table, [(7, 9), (0, 2)])
        game.fanout.flush()
        self.assertEqual([a["move"]["ply"] for a in self.actions(first)],
                         [3])
        self.assertEqual([a["move"]["ply"] for a in self.actions(second)],
                         [5, 6])
        self.assertNotIn(events.ActionPlayed, told)

    def test_joinerGetsNoMoveTwice(self):
        """
        Moves held back when a spectator joins go to those already
        watching; the newcomer has them in its snapshot, and both get the
        moves after.
        """
        import json
        clock, table, game, first = self.watched()
        playGomoku(table, [(7, 7), (0, 0)])
        second = Recording()
        game.addStream(second)
        playGomoku(table, [(7, 8), (0, 1)])
        game.fanout.flush()
        self.assertEqual([a["move"]["ply"] for a in self.actions(first)],
                         [1, 2, 3, 4])
        event, payload = frames(second.data[0])[0]
        self.assertEqual(event, "snapshot")
        self.assertEqual(len(json.loads(payload)["moves"]), 2)
        self.assertEqual([a["move"]["ply"] for a in self.actions(second)],
                         [3, 4])

    def test_nobodyWatching(self):
        """
        Moves of a game nobody watches wake no fan-out.
        """
        clock = Clock()
        spectating = Spectating(clock)
        table = gomokuTable(clock, spectating)
        playGomoku(table, [(7, 7), (0, 0)])
        self.assertFalse(clock.getDelayedCalls())

    def test_oneCopyOfTheMoves(self):
        """
        A game's moves are its table's own list, kept after the game ends
        (no copy a move), and a game nobody watches is not called a move.
        """
        clock = Clock()
        spectating = Spectating(clock)
        table = gomokuTable(clock, spectating)
        game = spectating.gameOf(table)
        called = []
        game.actionPlayed = called.append
        playGomoku(table, BLACK_WINS)
        self.assertIs(game.played, table.actions)
        self.assertEqual(called, [])
        self.assertEqual(game.plies, 9)
        self.assertEqual([move["action"] for move in game.moves],
                         [list(cell) for cell in BLACK_WINS])
        self.assertEqual(len(game.replay()["steps"]), 10)

    def test_forgotten(self):
        """
        A finished game pushed out of the feed lets go of its events and
        texts, and of its fan-out's hook.
        """
        clock = Clock()
        spectating = Spectating(clock, maxFinished=1)
        games = []
        for name in ("one", "two"):
            table = gomokuTable(clock, spectating, name)
            games.append(spectating.gameOf(table))
            games[-1].addStream(Recording())
            playGomoku(table, BLACK_WINS)
        old = games[0]
        self.assertNotIn(old.id, spectating.games)
        self.assertEqual((old.others, len(old.played), old._moveTexts),
                         ([], 0, []))
        self.assertIsNone(old.fanout.pending)
