"""
The spectators' feed: an L{ITableListener} on every table of the hub that
keeps each running game's view, move list and turn, and streams every
event to the game's spectators (L{hub.web.stream}).  Finished games stay
for a while (the last L{MAX_FINISHED}) so that a page opened on a game
that just ended shows its replay at the same address.

Each event is encoded once, however many spectators there are, and the
fan-out runs after the table's own listeners, in slices.
"""

import collections
import itertools

from twisted.logger import Logger
from zope.interface import implementer

from hub.ihub import ITableListener
from hub.tables import events
from hub.web import replay, views
from hub.web.stream import Fanout, sseFrame

# Finished games kept in memory for their replay.
MAX_FINISHED = 64
# Events kept per game for its replay; a longer game streams on but its
# replay is left to the records.
MAX_EVENTS = 5000
# Seconds between two spectator counts sent to a game's spectators.
COUNT_INTERVAL = 1.0


def seatJSON(kind, seat):
    """
    A seat of a live game as JSON (no session ids, no tokens).
    """
    return {"index": seat.index, "name": seat.name,
            "role": views.roleText(kind, seat.index, seat.role),
            "bot": bool(seat.bot), "takenOver": False, "out": None}


def _actionPlayed(played):
    """
    The L{events.ActionPlayed} (without its detail) of an entry of
    L{LiveGame.played}.
    """
    seat, action, byBot, at = played
    return events.ActionPlayed(seat, action, byBot, None, at)


class LiveGame:
    """
    One game followed by the feed.

    @ivar id: the game's id on the web (C{"live-<n>"}).
    @ivar table: the running table, or None once over.
    @ivar view: the latest view (L{hub.web.views}).
    @ivar played: the actions so far, each as the tuple C{(seat, action,
        byBot, at)} of its L{events.ActionPlayed}.
    @ivar events: the events kept for the replay, actions as in
        L{played}.
    @ivar turn: C{(seat, deadline)} of the turn under way, or None.
    @ivar result: the result once over, else None.
    @ivar fanout: the spectators' streams.
    """

    # The handler of each event type, found by its name once (None: the
    # type is not followed).
    _handlers = {}

    def __init__(self, gameId, table, started, clock):
        self.id = gameId
        self.kind = started.kind
        self.tableName = started.table
        self.table = table
        self.clock = clock
        self.startedAt = started.at
        self.seats = [seatJSON(self.kind, s) for s in started.seats]
        self.initial = table.game.copy()
        self.events = []
        self.complete = True
        self.finalView = None
        self.played = []
        self._moves = []
        self.turn = None
        self.result = None
        self.fanout = Fanout(clock)
        self._countCall = None
        self._countSent = 0
        self.stopped = False

    @property
    def view(self):
        """
        The position now (computed when asked: most games have nobody
        watching them).
        """
        if self.table is not None:
            return views.viewOf(self.kind, self.table.game)
        return self.finalView

    @property
    def moves(self):
        """
        The move list so far (each entry made when first asked for: most
        games have nobody watching them).
        """
        moves = self._moves
        kind = self.kind
        for played in self.played[len(moves):]:
            moves.append(replay.moveJSON(kind, _actionPlayed(played),
                                         len(moves) + 1))
        return moves

    @property
    def watched(self):
        """
        True while some stream follows the game.
        """
        return bool(self.fanout.streams)

    @property
    def over(self):
        """
        True once the game has ended.
        """
        return self.result is not None

    @property
    def spectators(self):
        """
        How many streams follow the game now.
        """
        return len(self.fanout)

    def turnJSON(self):
        """
        The turn under way: the seat and the seconds left on its clock
        (None without a clock).
        """
        if self.turn is None or self.over:
            return None
        seat, deadline = self.turn
        remaining = None
        if deadline is not None:
            remaining = max(0.0, round(deadline - self.clock.seconds(), 1))
        return {"seat": seat, "remaining": remaining}

    def summary(self):
        """
        The game in a list: id, kind, table, players, plies, state.
        """
        return {"id": self.id, "kind": self.kind, "table": self.tableName,
                "players": [s["name"] for s in self.seats],
                "plies": len(self.played), "over": self.over,
                "spectators": self.spectators,
                "url": "/games/" + self.id}

    def snapshot(self):
        """
        Everything a spectator needs at once: the position now, the move
        list, the turn, the seats, the spectators and the result.
        """
        return {"id": self.id, "kind": self.kind, "live": not self.over,
                "table": self.tableName, "seats": self.seats,
                "startedAt": self.startedAt, "view": self.view,
                "moves": self.moves, "turn": self.turnJSON(),
                "spectators": self.spectators, "result": self.result}

    def replay(self):
        """
        The finished game step by step (L{replay.replaySteps}), or None
        when it was too long to keep.
        """
        if not self.complete or self.initial is None:
            return None
        tableEvents = [_actionPlayed(e) if type(e) is tuple else e
                       for e in self.events]
        steps, moves = replay.replaySteps(self.kind, self.initial.copy(),
                                          tableEvents)
        return {"steps": steps, "moves": moves}

    # Spectators

    def addStream(self, stream):
        """
        Stream the game to C{stream}: the snapshot now, then every event.
        """
        if not self.over:
            self.fanout.add(stream)
        stream.write(sseFrame("snapshot", self.snapshot()))
        if self.over:
            stream.finish()
            return
        self.countChanged()

    def removeStream(self, stream):
        """
        C{stream} is gone.
        """
        self.fanout.discard(stream)
        self.countChanged()

    def countChanged(self):
        """
        Tell the spectators how many they are, at most once per
        L{COUNT_INTERVAL}.
        """
        if self._countCall is None and not (self.over or self.stopped):
            self._countCall = self.clock.callLater(COUNT_INTERVAL,
                                                   self._sendCount)

    def _sendCount(self):
        self._countCall = None
        if self.spectators != self._countSent:
            self._countSent = self.spectators
            self.fanout.send(sseFrame("spectators",
                                      {"count": self.spectators}))

    def stop(self):
        """
        Cancel the timers and forget the streams' pending writes.
        """
        self.stopped = True
        if self._countCall is not None and self._countCall.active():
            self._countCall.cancel()
        self._countCall = None
        self.fanout.stop()

    # Events

    def keep(self, event):
        if not self.complete:
            return
        if len(self.events) >= MAX_EVENTS:
            self.complete = False
            self.events = []
            self.initial = None
            return
        self.events.append(event)

    def heard(self, event):
        """
        Follow C{event} and, when someone watches, stream it.
        """
        handlers = LiveGame._handlers
        handler = handlers.get(type(event), False)
        if handler is False:
            handler = handlers[type(event)] = getattr(
                LiveGame, "on" + events.eventName(event), None)
        if handler is not None:
            message = handler(self, event)
            if message is not None and self.watched:
                self.fanout.send(sseFrame(*message()))

    def onTurnStarted(self, event):
        self.turn = (event.seat, event.deadline)
        return lambda: ("turn", self.turnJSON())

    def onActionPlayed(self, event):
        # A tuple of plain values, which the garbage collector soon leaves
        # alone, rather than the event (and its detail) for the game's
        # length: see L{played}.
        played = (event.seat, event.action, event.byBot, event.at)
        self.keep(played)
        self.played.append(played)
        ply = len(self.played)
        game = self.table.game
        if not game.isOver and (self.turn is None
                                or self.turn[0] != game.currentSeat):
            # Gomoku announces only the first turn: the next is implied.
            self.turn = (game.currentSeat, None)
        if self.kind == "splendor":
            # Too many rules to replay in the page: send the position.
            return lambda: ("action", {"move": self.moves[ply - 1],
                                       "view": self.view,
                                       "turn": self.turnJSON()})
        # The page applies a stone or a path itself.
        return lambda: ("action", {"move": self.moves[ply - 1],
                                   "turn": self.turnJSON()})

    def onCardDealt(self, event):
        return lambda: ("view", {"view": self.view})

    def _seatNews(self, seat, note, **changes):
        self.seats[seat].update(changes)
        return lambda: ("seats", {"seats": self.seats, "view": self.view,
                                  "note": {"seat": seat, "what": note}})

    def onSeatTimedOut(self, event):
        return self._seatNews(event.seat, "timed out")

    def onSeatEliminated(self, event):
        self.keep(event)
        return self._seatNews(event.seat, "eliminated (%s)" % event.reason,
                              out=event.reason)

    def onSeatDropped(self, event):
        return self._seatNews(event.seat, "left", out="left")

    def onSeatTakenOver(self, event):
        return self._seatNews(event.seat, "played by a bot", takenOver=True)

    def onSeatReturned(self, event):
        return self._seatNews(event.seat, "is back", out=None,
                              takenOver=False)

    def onGameEnded(self, event):
        self.finalView = views.viewOf(self.kind, self.table.game)
        self.result = {
            "reason": event.reason, "winner": event.winner,
            "ranking": list(event.ranking),
            "winnerName": (self.seats[event.winner]["name"]
                           if event.winner is not None else None)}
        self.table = None
        return lambda: ("end", {"result": self.result, "view": self.view})


@implementer(ITableListener)
class Spectating:
    """
    The feed of every game of the hub: give it to the lobby
    (C{lobby.addTableListener(spectating)}).

    @ivar games: the L{LiveGame}s by id, running and recently finished,
        oldest first.
    """

    log = Logger()

    def __init__(self, clock, maxFinished=MAX_FINISHED):
        self.clock = clock
        self.maxFinished = maxFinished
        self.games = collections.OrderedDict()
        self._byTable = {}
        self._finished = collections.deque()
        self._ids = itertools.count(1)

    def tableEvent(self, table, event):
        """
        Follow C{table}'s game from its start, and stream what happens.
        """
        if isinstance(event, events.GameStarted):
            game = LiveGame("live-%d" % next(self._ids), table, event,
                            self.clock)
            self.games[game.id] = game
            self._byTable[table] = game
            return
        game = self._byTable.get(table)
        if game is None:
            return
        game.heard(event)
        if isinstance(event, events.GameEnded):
            del self._byTable[table]
            game.fanout.finish()
            self._finished.append(game.id)
            while len(self._finished) > self.maxFinished:
                old = self.games.pop(self._finished.popleft(), None)
                if old is not None:
                    old.stop()

    def gameOf(self, table):
        """
        The L{LiveGame} of a running C{table}, or None.
        """
        return self._byTable.get(table)

    def game(self, gameId):
        """
        The L{LiveGame} called C{gameId}, or None.
        """
        return self.games.get(gameId)

    def running(self):
        """
        The games under way, oldest first.
        """
        return list(self._byTable.values())

    def stop(self):
        """
        The hub is stopping: cancel every game's timers.
        """
        for game in self.games.values():
            game.stop()
