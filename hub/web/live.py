"""
The spectators' feed: an L{ITableListener} on every table of the hub that
keeps each running game's view, move list and turn, and streams every
event to the game's spectators (L{hub.web.stream}).  Finished games stay
for a while (the last L{MAX_FINISHED}, holding at most
L{MAX_FINISHED_ACTIONS} actions in all; fewer with records,
L{RECORDED_FINISHED}) so that a page opened on a game that just ended
shows its replay at the same address.

Each event is encoded once, however many spectators there are, and the
fan-out runs after the table's own listeners, in slices.  A game nobody
watches costs nothing a move: the feed does not hear actions and turns
(L{HEARS}; a watched game hears them itself), which its table keeps
(L{hub.ihub.ITable.actions}, C{turnStarted}), and its move list,
position and messages are made only when someone asks.
"""

from __future__ import annotations

import collections
import math
from typing import Any, List, Optional

from twisted.logger import Logger
from zope.interface import implementer
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.python.failure import Failure

from hub.ihub import ITableListener
from hub.tables import events
from hub.tables.actionlog import ActionLog
from hub.web import replay, views
from hub.web.stream import Fanout, encodeJSON, sseEncoded, sseFrame

# Finished games kept in memory for their replay, and the actions they
# may hold in all (the oldest games forgotten first): a few long games
# would otherwise hold as much as many short ones, each up to MAX_EVENTS.
# Without records the feed is the only place a finished game can be
# watched again; about 3 MB full.
MAX_FINISHED = 64
MAX_FINISHED_ACTIONS = 20000
# The same, with records (the web face's default): every finished game
# is stored and its replay read from its record, so the feed keeps only a
# short tail, for a page opened on a game that just ended (about 0.6 MB
# full: docs/benchmarks.md, "Soak").
RECORDED_FINISHED = 16
RECORDED_FINISHED_ACTIONS = 4000
# Events kept per game for its replay; a longer game streams on but its
# replay is left to the records.
MAX_EVENTS = 5000
# Seconds between two spectator counts sent to a game's spectators.
COUNT_INTERVAL = 1.0


# A gomoku move's JSON text (L{replay.moveJSON}, encoded), without the
# dict: a game's spectators get one per move.
GOMOKU_MOVE = ('{"ply":%d,"seat":%d,"action":[%d,%d],"text":"%s",'
               '"byBot":%s,"at":%s}')
# A gomoku move's C{action} frame, from its move text and the turn after
# it: the other seat's, or none once the move ended the game.
GOMOKU_ACTION = 'event: action\ndata: {"move":%s,"turn":%s}\n\n'
GOMOKU_TURNS = ('{"seat":1,"remaining":null}', '{"seat":0,"remaining":null}')


def moveText(kind: str, event: Any, ply: int) -> Any:
    """
    The JSON text of C{replay.moveJSON(kind, event, ply)}, as
    L{encodeJSON} writes it (a gomoku move from a template).
    """
    if type(event) is tuple:
        event = events.ActionPlayed(*event)
    if kind == "gomoku":
        (x, y), at = event.action, event.at
        if (type(x) is int and type(y) is int and type(at) is float
                and type(event.seat) is int and math.isfinite(at)):
            return GOMOKU_MOVE % (
                ply, event.seat, x, y, views.gomokuCell(x, y),
                "true" if event.byBot else "false", repr(at))
    return encodeJSON(replay.moveJSON(kind, event, ply))


def seatJSON(kind: str, seat: Any) -> Any:
    """
    A seat of a live game as JSON (no session ids, no tokens).
    """
    return {"index": seat.index, "name": seat.name,
            "role": views.roleText(kind, seat.index, seat.role),
            "bot": bool(seat.bot), "takenOver": False, "out": None,
            "guest": bool(seat.guest), "display": None}


@implementer(ITableListener)
class LiveGame:
    """
    One game followed by the feed: while someone watches it, it hears
    its table's actions and turns itself (the feed does not: L{HEARS}).

    @ivar id: the game's id on the web (C{"live-<n>"}).
    @ivar table: the running table, or None once over.
    @ivar view: the latest view (L{hub.web.views}).
    @ivar moves: the move list so far.
    @ivar played: the table's actions (L{ITable.actions}), kept after the
        table is gone: the feed keeps no copy of a move.
    @ivar others: the other events kept for the replay, each with the
        number of actions before it (L{tableEvents} puts them together).
    @ivar turn: C{(seat, deadline)} of the turn under way, or None.
    @ivar result: the result once over, else None.
    @ivar fanout: the spectators' streams.
    """

    def __init__(self, gameId: str, table: Any, started: Any,
                 clock: IReactorTime) -> None:
        self.id = gameId
        self.kind = started.kind
        # Gomoku's moves are framed per write of the fan-out (the
        # page plays a stone itself); Splendor's carry the view (too
        # many rules to replay in the page).
        self.framesMoves = self.kind == "gomoku"
        self.sendsView = self.kind == "splendor"
        self.tableName = started.table
        self.table = table
        self.clock = clock
        self.startedAt = started.at
        self.seats = [seatJSON(self.kind, s) for s in started.seats]
        # The position before the first action, as the table told it (a
        # copy of the live rules object would slow every move of the game
        # by a fifth: hub.games.state says why).
        self.position: Any = started.position
        self.others: List[Any] = []
        # The rules object once the game is over (its table's; no move
        # changes it any more): its view is made when asked.
        self.finalGame: Any = None
        self.played: Any = table.actions
        self._moveTexts: List[Any] = []
        self.result: Any = None
        self.fanout = Fanout(clock, pending=self._actionFrames)
        self._framed = 0
        self._finalSnapshot: Any = None
        self._countCall: Optional[IDelayedCall] = None
        self._countSent = 0
        self.stopped = False

    @property
    def initial(self) -> Any:
        """
        A rules object of the position before the first action, made when
        asked (for a replay), or None once the game is forgotten.
        """
        if self.position is None:
            return None
        return replay.restore(self.kind, self.position)

    @property
    def view(self) -> Any:
        """
        The position now (computed when asked: most games have nobody
        watching them).
        """
        game = self.table.game if self.table is not None else self.finalGame
        return views.viewOf(self.kind, game) if game is not None else None

    @property
    def moves(self) -> Any:
        """
        The move list so far (L{replay.moveJSON} of each action).
        """
        return [replay.moveJSON(self.kind, events.ActionPlayed(*action), ply)
                for ply, action in enumerate(self.played, 1)]

    def moveTexts(self) -> Any:
        """
        The move list so far, each move as JSON text: encoded when first
        asked for, and kept as text (no dicts to keep for the collector).
        """
        texts, played, kind = self._moveTexts, self.played, self.kind
        for ply in range(len(texts), len(played)):
            texts.append(moveText(kind, played[ply], ply + 1))
        return texts

    @property
    def turn(self) -> Any:
        """
        C{(seat, deadline)} of the turn under way, or None: the table's
        last L{events.TurnStarted}, unless the seat to play changed since
        (gomoku announces only the first turn: the next are implied).
        Worked out when asked, not on every action.
        """
        table = self.table
        if table is None:
            return None
        announced = table.turnStarted
        turn = (None if announced is None
                else (announced.seat, announced.deadline))
        if len(self.played) > table.turnStartedAt:
            game = table.game
            if not game.isOver:
                seat = game.currentSeat
                if turn is None or turn[0] != seat:
                    turn = (seat, None)
        return turn

    def turnText(self) -> Any:
        """
        L{turnJSON} as JSON text.
        """
        turn = self.turn
        if (turn is not None and turn[1] is None and type(turn[0]) is int
                and self.result is None):
            return '{"seat":%d,"remaining":null}' % (turn[0],)
        return encodeJSON(self.turnJSON())

    @property
    def plies(self) -> Any:
        """
        How many actions were played.
        """
        return len(self.played)

    @property
    def watched(self) -> Any:
        """
        True while some stream follows the game.
        """
        return bool(self.fanout.streams)

    @property
    def over(self) -> bool:
        """
        True once the game has ended.
        """
        return self.result is not None

    @property
    def spectators(self) -> Any:
        """
        How many streams follow the game now.
        """
        return len(self.fanout)

    def turnJSON(self) -> Any:
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

    def summary(self) -> Any:
        """
        The game in a list: id, kind, table, players, plies, state.
        """
        return {"id": self.id, "kind": self.kind, "table": self.tableName,
                "players": [s["name"] for s in self.seats],
                "guests": [s["guest"] for s in self.seats],
                "displays": [s["display"] for s in self.seats],
                "plies": len(self.played), "over": self.over,
                "spectators": self.spectators,
                "url": "/games/" + self.id}

    def _snapshotParts(self) -> Any:
        return ({"id": self.id, "kind": self.kind, "live": not self.over,
                 "table": self.tableName, "seats": self.seats,
                 "startedAt": self.startedAt, "view": self.view},
                {"turn": self.turnJSON(), "spectators": self.spectators,
                 "result": self.result})

    def snapshot(self) -> Any:
        """
        Everything a spectator needs at once: the position now, the move
        list, the turn, the seats, the spectators and the result.
        """
        head, tail = self._snapshotParts()
        head["moves"] = self.moves
        head.update(tail)
        return head

    def snapshotFrame(self) -> Any:
        """
        The L{snapshot} as a C{snapshot} frame, the same bytes as
        C{sseFrame("snapshot", self.snapshot())}, spliced from the move
        texts (L{moveTexts}).  A finished game's is made once (for as
        long as its number of spectators stays the same).
        """
        final = self._finalSnapshot
        if final is not None and final[0] == self.spectators:
            return final[1]
        frame = sseEncoded("snapshot", self.snapshotText())
        if self.over:
            self._finalSnapshot = (self.spectators, frame)
        return frame

    def snapshotText(self) -> Any:
        """
        L{snapshot} as JSON text (as L{encodeJSON} writes it), spliced
        from the move texts (L{moveTexts}): a move is encoded once, when
        first asked for, however often the snapshot is.
        """
        head, tail = self._snapshotParts()
        return "%s,\"moves\":[%s],%s" % (
            encodeJSON(head)[:-1], ",".join(self.moveTexts()),
            encodeJSON(tail)[1:])

    def tableEvents(self) -> Any:
        """
        The events kept for the replay, the actions made events again.
        """
        played = self.played
        kept: List[Any] = []
        done = 0
        for count, event in self.others:
            kept.extend(played.event(ply) for ply in range(done, count))
            done = count
            kept.append(event)
        kept.extend(played.event(ply) for ply in range(done, len(played)))
        return kept

    @property
    def complete(self) -> bool:
        """
        Whether the game is short enough to replay here (L{MAX_EVENTS}).
        """
        return len(self.played) + len(self.others) <= MAX_EVENTS

    def replay(self) -> Any:
        """
        The finished game step by step (L{replay.replaySteps}), or None
        when it was too long to keep.
        """
        initial = self.initial
        if not self.complete or initial is None:
            return None
        steps, moves = replay.replaySteps(self.kind, initial,
                                          self.tableEvents())
        return {"steps": steps, "moves": moves}

    # Spectators

    def addStream(self, stream: Any) -> None:
        """
        Stream the game to C{stream}: the snapshot now, then every event.
        """
        if not self.over:
            # The moves held back go to the streams already here; the
            # newcomer has them in its snapshot.
            self._send(None)
            self.fanout.add(stream)
            if self.table is not None:
                self.table.addListener(self, WATCHED)
        stream.write(self.snapshotFrame())
        if self.over:
            stream.finish()
            return
        self.countChanged()

    def removeStream(self, stream: Any) -> None:
        """
        C{stream} is gone.
        """
        self.fanout.discard(stream)
        if not self.fanout.streams and self.table is not None:
            self.table.removeListener(self)
        self.countChanged()

    def countChanged(self) -> None:
        """
        Tell the spectators how many they are, at most once per
        L{COUNT_INTERVAL}.
        """
        if self._countCall is None and not (self.over or self.stopped):
            self._countCall = self.clock.callLater(COUNT_INTERVAL,
                                                   self._sendCount)

    def _sendCount(self) -> None:
        self._countCall = None
        if self.spectators != self._countSent:
            self._countSent = self.spectators
            self._send(sseFrame("spectators", {"count": self.spectators}))

    def stop(self) -> None:
        """
        Cancel the timers and forget the streams' pending writes.
        """
        self.stopped = True
        if self._countCall is not None and self._countCall.active():
            self._countCall.cancel()
        self._countCall = None
        # (The fan-out drops its hook, a bound method of this game: the
        # game is freed as soon as it is forgotten.)
        self.fanout.stop()

    def forget(self) -> None:
        """
        The game leaves the feed: stop it, and let go of its events and
        texts now, whatever may still hold the game itself (a closed
        request, until the collector finds the cycle).
        """
        self.stop()
        self.others, self.played, self._moveTexts = [], ActionLog(), []
        self.position = self.finalGame = self._finalSnapshot = None

    # Frames

    def _send(self, frame: Any) -> None:
        """
        Send C{frame} to the spectators after the action frames held
        back (only those, with C{frame} None).
        """
        held = self._actionFrames()
        if held is not None:
            self.fanout.send(held)
        if frame is not None:
            self.fanout.send(frame)

    def _actionFrames(self) -> Any:
        """
        The C{action} frames of the gomoku moves played since the last
        frames sent, as one L{bytes}, or None: a watched gomoku game
        frames its moves once per write of its fan-out, not once each
        (the other kinds send each action as it comes).
        """
        played, start = self.played, self._framed
        end = len(played)
        if start == end:
            return None
        self._framed = end
        if not self.fanout.streams or not self.framesMoves:
            return None
        texts = self.moveTexts()
        frames = [GOMOKU_ACTION % (texts[ply], GOMOKU_TURNS[played[ply][0]])
                  for ply in range(start, end)]
        if self.table is None or self.table.game.isOver:
            # The last move ended the game: nobody's turn.
            frames[-1] = GOMOKU_ACTION % (texts[end - 1], "null")
        return "".join(frames).encode("ascii")

    # Events

    def keep(self, event: Any) -> None:
        if len(self.others) < MAX_EVENTS:
            self.others.append((len(self.played), event))

    def heard(self, event: Any) -> None:
        """
        Follow C{event} and, when someone watches, stream it.
        """
        handler = HANDLERS.get(type(event))
        if handler is not None:
            message = handler(self, event)
            if message is not None and self.fanout.streams:
                self._send(sseFrame(*message()))

    def onTurnStarted(self, event: Any) -> Any:
        return lambda: ("turn", self.turnJSON())

    def tableEvent(self, table: Any, event: Any) -> None:
        """
        An event of the watched game that only its spectators need
        (L{WATCHED}: L{addStream} listens to them).
        """
        if type(event) is events.ActionPlayed:
            self.actionPlayed(event)
        else:
            self.heard(event)

    def actionPlayed(self, event: Any) -> None:
        """
        Stream the action (its table keeps it: L{played}).  Heard only
        while someone watches: a game nobody watches costs nothing a
        move.
        """
        if self.framesMoves:
            # Framed at the fan-out's next write (L{_actionFrames}).
            self.fanout.wake()
            return None
        self._framed = len(self.played)
        move = self.moveTexts()[-1]
        if self.sendsView:
            # Too many rules to replay in the page: send the position.
            view = ',"view":' + encodeJSON(self.view)
        else:
            # The page applies a stone or a path itself.
            view = ""
        self.fanout.send(sseEncoded("action", '{"move":%s%s,"turn":%s}' % (
            move, view, self.turnText())))
        return None

    def onCardDealt(self, event: Any) -> Any:
        return lambda: ("view", {"view": self.view})

    def _seatNews(self, seat: Any, note: Any, **changes: Any) -> Any:
        self.seats[seat].update(changes)
        return lambda: ("seats", {"seats": self.seats, "view": self.view,
                                  "note": {"seat": seat, "what": note}})

    def onSeatTimedOut(self, event: Any) -> Any:
        return self._seatNews(event.seat, "timed out")

    def onSeatEliminated(self, event: Any) -> Any:
        self.keep(event)
        return self._seatNews(event.seat, "eliminated (%s)" % event.reason,
                              out=event.reason)

    def onSeatDropped(self, event: Any) -> Any:
        return self._seatNews(event.seat, "left", out="left")

    def onSeatTakenOver(self, event: Any) -> Any:
        return self._seatNews(event.seat, "played by a bot", takenOver=True)

    def onSeatReturned(self, event: Any) -> Any:
        return self._seatNews(event.seat, "is back", out=None,
                              takenOver=False)

    def onGameEnded(self, event: Any) -> Any:
        self.finalGame = self.table.game
        self.result = {
            "reason": event.reason, "winner": event.winner,
            "ranking": list(event.ranking),
            "winnerName": (self.seats[event.winner]["name"]
                           if event.winner is not None else None)}
        self.table = None
        return lambda: ("end", {"result": self.result, "view": self.view})


# The handler of each kind of event a LiveGame follows.
HANDLERS = {
    getattr(events, name[len("on"):]): function
    for name, function in vars(LiveGame).items()
    if name.startswith("on") and hasattr(events, name[len("on"):])}
# What a watched game hears of its table itself: what only its
# spectators need (the table keeps the actions and the turn).
WATCHED = (events.ActionPlayed, events.TurnStarted, events.CardDealt)
# What the feed hears of every table (L{ITable.addListener}): what a
# game must follow whether watched or not.
HEARS = frozenset(HANDLERS).union([events.GameStarted]).difference(WATCHED)


@implementer(ITableListener)
class Spectating:
    """
    The feed of every game of the hub: give it to the lobby
    (C{lobby.addTableListener(spectating, hears=HEARS)}).

    @ivar games: the L{LiveGame}s by id, running and recently finished,
        oldest first.
    """

    log = Logger()

    def __init__(self, clock: IReactorTime, maxFinished: Any = MAX_FINISHED,
                 maxFinishedActions: Any = MAX_FINISHED_ACTIONS,
                 displays: Any = None) -> None:
        self.clock = clock
        #: The accounts' display names
        #: (L{hub.accounts.displays.DisplayNames}) of a web face with
        #: accounts, or None.
        self.displays = displays
        self.maxFinished = maxFinished
        self.maxFinishedActions = maxFinishedActions
        self.games: Any = collections.OrderedDict()
        self._byTable: Any = {}
        self._finished: Any = collections.deque()
        self._finishedActions = 0
        #: The number of the last game started (C{live-N}), 0 before any.
        self.started = 0

    def tableEvent(self, table: Any, event: Any) -> None:
        """
        Follow C{table}'s game from its start, and stream what happens
        (the actions are heard by the watched games themselves).
        """
        if type(event) is events.GameStarted:
            self.started += 1
            game = LiveGame("live-%d" % self.started, table, event,
                            self.clock)
            self.games[game.id] = game
            self._byTable[table] = game
            self.showDisplays(game)
            return
        game = self._byTable.get(table)
        if game is None:
            return
        game.heard(event)
        if type(event) is events.GameEnded:
            del self._byTable[table]
            game.fanout.finish()
            finished = self._finished
            finished.append((game.id, game.plies))
            self._finishedActions += game.plies
            while finished and (
                    len(finished) > self.maxFinished
                    or self._finishedActions > self.maxFinishedActions):
                gameId, plies = finished.popleft()
                self._finishedActions -= plies
                old = self.games.pop(gameId, None)
                if old is not None:
                    old.forget()

    def showDisplays(self, game: Any) -> None:
        """
        Give the accounts' seats of C{game} their display names: at once
        when they are held, else when read (a spectator who came in
        between sees them at the next visit).
        """
        if self.displays is None:
            return
        seats = [s for s in game.seats if not s["guest"]]

        def read(found: Any) -> None:
            for seat in seats:
                seat["display"] = found.get(seat["name"])

        def failed(failure: Failure) -> None:
            self.log.warn("display names not shown: {error}",
                          error=failure.getErrorMessage())
        self.displays.lookup([s["name"] for s in seats]).addCallbacks(
            read, failed)

    def gameOf(self, table: Any) -> Any:
        """
        The L{LiveGame} of a running C{table}, or None.
        """
        return self._byTable.get(table)

    def game(self, gameId: str) -> Any:
        """
        The L{LiveGame} called C{gameId}, or None.
        """
        return self.games.get(gameId)

    def forgotten(self, gameId: str) -> bool:
        """
        Whether C{gameId} is a game this feed followed and has forgotten:
        one of the finished games pushed out by later ones.
        """
        prefix, _, number = gameId.partition("-")
        return (prefix == "live" and number.isdigit()
                and 0 < int(number) <= self.started
                and gameId not in self.games)

    def running(self) -> Any:
        """
        The games under way, oldest first.
        """
        return list(self._byTable.values())

    def stop(self) -> None:
        """
        The hub is stopping: cancel every game's timers.
        """
        for game in self.games.values():
            game.stop()
