"""
The table of a Chinese checkers room (L{hub.games.checkers}), without
transports.

A L{CheckersTable} runs one game: the turn clock (C{turnSeconds} plus
C{turnGrace} from each L{events.TurnStarted}; illegal moves do not reset
it), the elimination of a seat that runs out of time, the departed seats
and the ranking.  A player who leaves or drops mid-game keeps the seat
and its pieces and is eliminated when their turn comes (at once if it is
their turn); with C{takeover="bot"} a bot plays the seat instead, as long
as someone still connected plays.

L{CheckersStartPolicy} seats a room's members (regions by join order)
and makes its table; L{replay} rebuilds a game from a table's events.
"""

from __future__ import annotations

from typing import (
    Any, Callable, Dict, FrozenSet, Generator, Iterable, List, Mapping,
    Optional, Tuple)

from twisted.internet.interfaces import IReactorTime
from zope.interface import implementer

from hub.games import checkers as rules
from hub.ihub import ILobby, IStartPolicy, ITableListener, Room
from hub.tables import events
from hub.tables.base import (
    IllegalAction, NotSeated, OptionsCopied, Table, TableOptions, replayed,
    runReplay, startIfReady)

KIND = "checkers"


@implementer(IStartPolicy)
class CheckersStartPolicy(OptionsCopied):
    """
    A checkers room starts by itself when every member is ready and their
    number is one of L{counts} (2, 3 or 6 by default), be it because the
    last one readied or because the only unready member left.

    @ivar counts: the member counts that start.
    @ivar clock: the L{IReactorTime} of the tables.
    @ivar options: the tables' L{TableOptions}.
    @ivar listenerFor: C{listenerFor(room)} returns the adapter's
        L{hub.ihub.ITableListener} for the table of C{room}, or None.
    """

    autoStart = True
    openTable = True

    def __init__(
            self, fourPlayers: bool = False,
            clock: Optional[IReactorTime] = None,
            options: Optional[TableOptions] = None,
            listenerFor: Optional[
                Callable[[Room], Optional[ITableListener]]] = None,
            sizes: Iterable[int] = rules.STANDARD_PLAYER_COUNTS) -> None:
        """
        @param fourPlayers: also start games of four (the same as adding
            4 to C{sizes}).
        @param sizes: the player counts that start, among
            L{rules.PLAYER_COUNTS}.
        @raise ValueError: a count no game has.
        """
        counts = frozenset(sizes) | (
            frozenset([4]) if fourPlayers else frozenset())
        unknown = counts - frozenset(rules.PLAYER_COUNTS)
        if unknown:
            raise ValueError("no checkers game for %s players" % (
                ", ".join(str(n) for n in sorted(unknown)),))
        self.counts = counts
        self.clock = clock
        self.options = options if options is not None else TableOptions()
        self.listenerFor = listenerFor

    @property
    def playerCounts(self) -> FrozenSet[int]:
        """
        The member counts that start: L{counts}.
        """
        return self.counts

    def canStart(self, room: Room) -> bool:
        """
        Everyone is ready and the member count is allowed.
        """
        return room.allReady and len(room.members) in self.counts

    def newTable(self, room: Room) -> CheckersTable:
        """
        A new table with one seat per member, regions by join order; each
        member's C{seat} is set, and the adapter's listener attached.
        """
        if self.clock is None:
            raise ValueError("a policy without a clock makes no table")
        game = rules.CheckersGame(len(room.members))
        seats: List[events.Seat] = []
        for index, member in enumerate(room.members):
            member.seat = index
            seats.append(events.Seat(
                index, member.name, member.session.id,
                game.regionOfSeat(index),
                guest=bool(getattr(member.session, "guest", False))))
        table = CheckersTable(room.name, seats, game, self.clock,
                              self.options)
        if self.listenerFor is not None:
            listener = self.listenerFor(room)
            if listener is not None:
                table.addListener(listener)
        return table

    def memberLeft(self, lobby: ILobby, room: Room) -> None:
        """
        A member left C{room} while no game runs: start the game if the
        members left are all ready and their count is allowed.
        """
        startIfReady(self, lobby, room)


class CheckersTable(Table):
    """
    The running game of one checkers room.
    """

    kind = KIND
    game: rules.CheckersGame

    def __init__(self, name: str, seats: Iterable[events.Seat],
                 game: rules.CheckersGame, clock: IReactorTime,
                 options: Optional[TableOptions] = None) -> None:
        Table.__init__(self, name, seats, game, clock, options)

    def position(self) -> Dict[str, Any]:
        """
        The game as it stands: regions, each seat's pieces and the seat
        to move (JSON-able; L{restore} rebuilds it).
        """
        return positionOf(self.game)

    # Turns

    def startTurn(self) -> None:
        """
        Announce the turn of the seat to move: its clock starts (and its
        bot acts, if L{takeOver} gave it one), or if its player is gone
        it is eliminated now or played by a bot.
        """
        seat = self.game.currentSeat
        # A turn starts only in a game that is not over.
        assert seat is not None
        options = self.options
        now = self.now()
        departed = seat in self.departed
        delay = None
        if not departed and options.turnSeconds is not None:
            delay = options.turnSeconds + options.turnGrace
        self.announceTurn(events.TurnStarted(
            seat, None if delay is None else now + delay, now))
        if departed:
            self.departedTurn(seat)
            return
        if delay is not None:
            self.startClock(delay, self.timedOut)
        self.takeover.turn()

    def departedTurn(self, seat: int) -> None:
        """
        It is the turn of C{seat}, whose player is gone: its bot moves
        after C{botDelay} if L{botPlays} and it has a legal move, else the
        seat is eliminated now.
        """
        self.stopClock()
        if self.botPlays() and self.game.legalActions(seat):
            if seat not in self.takeover:
                self.takeover.take(seat, seat)
            self.takeover.turn()
        else:
            self.eliminate(seat, events.FORFEIT)

    def botPlays(self) -> bool:
        """
        Whether a bot plays a departed seat to move: only with takeover,
        and only while someone still connected is playing.
        """
        if self.options.takeover != "bot":
            return False
        return any(seat not in self.departed
                   for seat in self.game.activeSeats())

    def timedOut(self) -> None:
        """
        The seat to move ran out of time: it is eliminated.
        """
        seat = self.game.currentSeat
        assert seat is not None
        self.emit(events.SeatTimedOut(seat, self.now()))
        self.eliminate(seat, events.TIMEOUT)

    def eliminate(self, seat: int, reason: str) -> None:
        """
        Eliminate C{seat} (its pieces leave the board), then go on.
        """
        self.stopClock()
        self.takeover.release(seat)
        result = self.game.eliminate(seat)
        self.emit(events.SeatEliminated(seat, reason, self.now()))
        self.afterTurn(result, reason)

    # Actions

    def act(self, seat: Optional[int], action: Any) -> None:
        """
        C{seat} moves along the path C{action}.

        @raise hub.tables.base.GameIsOver: the game has ended.
        @raise NotSeated: C{seat} has no seat, or its player left.
        @raise hub.tables.base.NotYourTurn: another seat is to move.
        @raise IllegalAction: the rules refuse the path (the message is
            the rules' reason).
        """
        seat = self.checkTurn(seat)
        if seat in self.departed:
            raise NotSeated(seat)
        try:
            result = self.game.apply(seat, action)
        except rules.IllegalMove as e:
            raise IllegalAction(e.reason)
        self.played(result, False)

    def botAct(self, seat: int, action: rules.Path) -> None:
        """
        The bot of C{seat} chose the legal path C{action}.
        """
        self.played(self.game.apply(seat, action), True)

    def played(self, result: rules.TurnResult, byBot: bool) -> None:
        """
        A legal move was applied: tell it, then end the turn.  The turn
        clock runs on: the next turn moves it, the game's end stops it.
        """
        self.playedAction(result.seat, result.path, byBot, result,
                          self.now())
        self.afterTurn(result, events.NORMAL)

    def afterTurn(self, result: rules.TurnResult, reason: str) -> None:
        """
        End the game, or start the next turn.
        """
        if result.over:
            ranking = tuple(self.game.ranking())
            self.end(reason, ranking, ranking[0] if ranking else None)
        else:
            self.startTurn()

    # Departures

    def drop(self, seat: int) -> None:
        """
        The player of C{seat} left or dropped: the seat stays until its
        turn (at once if it is its turn); when every player is gone the
        game is abandoned.
        """
        if self.depart(seat) and seat == self.game.currentSeat:
            self.departedTurn(seat)


def positionOf(game: rules.CheckersGame) -> Dict[str, Any]:
    """
    The JSON-able position of C{game} (a L{rules.CheckersGame}): its
    regions, each seat's pieces and the seat to move.
    """
    return {
        "regions": list(game.regions),
        "pieces": [[list(cell) for cell in game.pieces(seat)]
                   for seat in range(game.seatCount)],
        "currentSeat": game.currentSeat,
    }


def restore(position: Mapping[str, Any]) -> rules.CheckersGame:
    """
    The L{rules.CheckersGame} of a position from L{positionOf} (with, if
    it says, the seats C{"finished"} and C{"eliminated"}).
    """
    pieces = {seat: [tuple(cell) for cell in cells]
              for seat, cells in enumerate(position["pieces"])}
    return rules.CheckersGame.fromPosition(
        position["regions"], pieces, position["currentSeat"],
        position.get("finished", ()), position.get("eliminated", ()))


def replay(
        tableEvents: Iterable[object],
        game: Optional[rules.CheckersGame] = None,
        onAction: Optional[
            Callable[[rules.CheckersGame, events.ActionPlayed], object]
        ] = None,
) -> Optional[rules.CheckersGame]:
    """
    Rebuild the game a table played from its events alone: the position
    of L{events.GameStarted} (or C{game}, the position before the
    events), then every move and elimination.

    @param onAction: called as C{onAction(game, event)} after each
        L{events.ActionPlayed} (a replay's steps).
    @return: the final L{rules.CheckersGame}, or None without a
        L{events.GameStarted}.
    @raise ValueError: a move or an elimination before any position.
    """
    return runReplay(replaying(tableEvents, game), onAction)


def replaying(
        tableEvents: Iterable[object],
        game: Optional[rules.CheckersGame] = None,
) -> Generator[Tuple[rules.CheckersGame, events.ActionPlayed], None,
               Optional[rules.CheckersGame]]:
    """
    L{replay} a step at a time: yields C{(game, event)} after each
    L{events.ActionPlayed}, and returns the final game.
    """
    for event in tableEvents:
        if isinstance(event, events.GameStarted):
            game = restore(event.position)
        elif isinstance(event, events.ActionPlayed):
            game = replayed(game)
            game.apply(event.seat, event.action)
            yield game, event
        elif isinstance(event, events.SeatEliminated):
            replayed(game).eliminate(event.seat)
    return game


__all__ = ["KIND", "CheckersStartPolicy", "CheckersTable", "positionOf",
           "restore", "replay", "replaying"]
