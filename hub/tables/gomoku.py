"""
The gomoku table: two seats (0 plays black and moves first, 1 white), no
turn clock, the illegal-move limit, and the forfeit or the takeover of a
seat whose player is gone for good.

Events, in order, for a whole game: L{events.GameStarted}, one
L{events.TurnStarted} (black's first turn), then an
L{events.ActionPlayed} per stone (the action is C{(x, y)}) and at last
L{events.GameEnded}.  Seats alternate, so the turn after each stone is
implied by it and no L{events.TurnStarted} is repeated: the move path
stays one event long.  A seat whose player is lost and comes back within
the grace gives L{events.SeatReturned}; a seat gone for good gives
L{events.SeatDropped}, then either L{events.SeatTakenOver} or the end
(L{events.FORFEIT}).
"""

from zope.interface import implementer

from hub.games import gomoku as rules
from hub.ihub import IStartPolicy, ITable
from hub.tables import events
from hub.tables.base import IllegalAction, Table, TableOptions
from hub.tables.events import ActionPlayed

KIND = "gomoku"

# The room setting (Room.settings) holding the seat its owner plays; the
# adapter writes it, the start policy reads it.
OWNER_SEAT = "ownerSeat"

# A gomoku table's options when none are given: the illegal-move limit of
# gomoku-battle, no takeover.
DEFAULT_OPTIONS = TableOptions(maxIllegal=rules.MAX_ILLEGAL_MOVES)


@implementer(ITable)
class GomokuTable(Table):
    """
    One running gomoku game.

    @ivar maxIllegal: illegal moves in a row the seat to move may make;
        one more ends the game in error (L{events.ILLEGAL}).  None for no
        limit.
    @ivar illegalStreak: the illegal moves in a row so far.
    @ivar away: the seats whose player lost the connection and may still
        come back.
    """

    kind = KIND

    def __init__(self, name, seats, clock, options=None, game=None):
        if options is None:
            options = DEFAULT_OPTIONS
        if game is None:
            game = rules.GomokuGame()
        Table.__init__(self, name, seats, game, clock, options)
        self.maxIllegal = options.maxIllegal
        self.illegalStreak = 0
        self.away = set()
        self._fanout = ()

    # Listeners: a tuple, so that each event is told without a copy.

    def addListener(self, listener):
        Table.addListener(self, listener)
        self._fanout = tuple(self.listeners)

    def removeListener(self, listener):
        Table.removeListener(self, listener)
        self._fanout = tuple(self.listeners)

    def emit(self, event):
        for listener in self._fanout:
            try:
                listener.tableEvent(self, event)
            except Exception:
                self.log.failure(
                    "gomoku table {table!r}: listener {listener!r} failed "
                    "on {event}", table=self.name, listener=listener,
                    event=events.eventName(event))

    # The game

    def position(self):
        """
        The board as a list of the C{[x, y]} of its stones, black first
        (empty at the start).
        """
        return {"size": rules.SIZE,
                "moves": [[x, y] for x, y in self.game.moves]}

    def act(self, seat, action):
        """
        C{seat} puts a stone at C{action} = C{(x, y)}.  An illegal move
        counts toward the limit, and the move past the limit ends the
        game (L{events.ILLEGAL}) before L{IllegalAction} is raised.

        @raise hub.tables.base.TableError: a subclass saying why not.
        """
        game = self.game
        if self.over or seat is None or seat != game.currentSeat:
            self.checkTurn(seat)
        try:
            game.apply(seat, action)
        except rules.IllegalMove:
            self.refuse()
            raise IllegalAction(action)
        self.played(seat, action, False)

    def botAct(self, seat, action):
        if self.over or self.game.currentSeat != seat:
            return
        self.game.apply(seat, action)
        self.played(seat, action, True)

    def played(self, seat, action, byBot):
        """
        Tell of the stone, then end the game or let a bot answer.
        """
        self.illegalStreak = 0
        self.emit(ActionPlayed(seat, action, byBot, None,
                               self.clock.seconds()))
        game = self.game
        if game.isOver:
            winner = game.winnerSeat
            if winner is None:
                self.end(events.NORMAL)
            else:
                self.end(events.NORMAL, (winner, 1 - winner), winner)
        elif self.takeover.pilots:
            self.takeover.turn()

    def refuse(self):
        """
        Count an illegal move of the seat to move; past the limit the game
        ends in error, with no winner.
        """
        if self.maxIllegal is None:
            return
        self.illegalStreak += 1
        if self.illegalStreak > self.maxIllegal:
            self.game.endInError()
            self.end(events.ILLEGAL)

    # Players coming and going

    def seatLost(self, seat):
        """
        The player of C{seat} lost the connection and may come back.
        """
        self.away.add(seat)

    def seatResumed(self, seat):
        """
        The lost player of C{seat} is back (L{events.SeatReturned}).
        """
        if seat in self.away:
            self.away.discard(seat)
            self.emit(events.SeatReturned(seat, self.now()))

    def drop(self, seat):
        """
        The player of C{seat} is gone for good (L{events.SeatDropped}).
        With C{takeover="bot"} a bot plays the seat while the other seat's
        player is present; otherwise the seat forfeits.
        """
        if self.over:
            return
        self.emit(events.SeatDropped(seat, self.now()))
        other = 1 - seat
        if (self.options.takeover == "bot" and other not in self.away
                and other not in self.takeover):
            self.takeOver(seat)
        else:
            self.forfeit(seat)

    def forfeit(self, seat):
        """
        C{seat} loses by forfeit (L{events.FORFEIT}).
        """
        if self.over:
            return
        winner = 1 - seat
        self.game.forfeit(seat)
        self.end(events.FORFEIT, (winner, seat), winner)


@implementer(IStartPolicy)
class GomokuStartPolicy:
    """
    The owner starts a gomoku game once a guest is present and ready; the
    owner plays the seat in the room's L{OWNER_SEAT} setting (white by
    default), the guest the other one.

    @ivar clock: the clock of the tables.
    @ivar options: the tables' L{TableOptions}.
    @ivar listenerFor: C{listenerFor(room, table)} returns the adapter's
        L{hub.ihub.ITableListener} for a new table, or None.
    """

    autoStart = False

    def __init__(self, clock, options=DEFAULT_OPTIONS, listenerFor=None):
        self.clock = clock
        self.options = options
        self.listenerFor = listenerFor

    def canStart(self, room):
        """
        A guest is present and ready.
        """
        return len(room.members) == 2 and room.members[1].ready

    def newTable(self, room):
        """
        Seat the members and make the table on a fresh board (the original
        forgot to clear it; spec section 10).
        """
        ownerSeat = room.settings.get(OWNER_SEAT, rules.SEAT_WHITE)
        seats = [None, None]
        for member in room.members:
            seat = ownerSeat if member is room.owner else 1 - ownerSeat
            member.seat = seat
            seats[seat] = events.Seat(seat, member.name, member.session.id,
                                      rules.colourOfSeat(seat))
        table = GomokuTable(room.name, seats, self.clock, self.options)
        if self.listenerFor is not None:
            table.addListener(self.listenerFor(room, table))
        return table


def restore(position):
    """
    The rules object of C{position} (L{GomokuTable.position}).
    """
    if position["size"] != rules.SIZE:
        raise ValueError("not a %d x %d board" % (rules.SIZE, rules.SIZE))
    game = rules.GomokuGame()
    for index, (x, y) in enumerate(position["moves"]):
        game.apply(index & 1, (x, y))
    return game


def replay(tableEvents, game=None, onAction=None):
    """
    The final rules object of a game, rebuilt from its events alone: the
    position of L{events.GameStarted} (or C{game}, the position before
    the events), every stone, and how it ended.

    @param onAction: called as C{onAction(game, event)} after each
        L{events.ActionPlayed} (a replay's steps).
    @return: a L{rules.GomokuGame}, or None without a L{GameStarted}.
    """
    for event in tableEvents:
        eventType = type(event)
        if eventType is events.GameStarted:
            game = restore(event.position)
        elif eventType is events.ActionPlayed:
            game.apply(event.seat, tuple(event.action))
            if onAction is not None:
                onAction(game, event)
        elif eventType is events.GameEnded:
            if event.reason == events.FORFEIT:
                game.forfeit(1 - event.winner)
            elif event.reason == events.ILLEGAL:
                game.endInError()
    return game
