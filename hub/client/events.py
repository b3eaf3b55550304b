"""
What the client's state machines (L{hub.client.state} and the C{state_*}
modules), the watched games (L{hub.client.watch}), the auto-player and
the session tell their observers: one frozen class per kind of event,
as the tables' L{hub.tables.events}.  An observer is called with one
event, C{observer(event)}, and tells them apart by class.
"""

import attr


# what every state machine says
@attr.s(frozen=True)
class PhaseChanged:
    """
    The phase went from C{old} to C{new} (L{hub.client.state.LOBBY}...).
    """

    old = attr.ib()
    new = attr.ib()


@attr.s(frozen=True)
class Message:
    """
    A message for the user: C{kind} is C{"error"} or C{"info"}.
    """

    kind = attr.ib()
    text = attr.ib()


@attr.s(frozen=True)
class WrongServer:
    """
    The peer does not speak this game: C{reason} says why.
    """

    reason = attr.ib()


@attr.s(frozen=True)
class Disconnected:
    """
    The connection is gone.
    """


@attr.s(frozen=True)
class Retrying:
    """
    The session connects again: attempt C{attempt} in C{delay} seconds.
    """

    attempt = attr.ib()
    delay = attr.ib()


@attr.s(frozen=True)
class RoomChanged:
    """
    The room (its members, ready flags, owner, colours) changed.
    """


@attr.s(frozen=True)
class TurnChanged:
    """
    Another turn: checkers give the C{region} to move, Splendor the
    C{playerId}; gomoku neither.
    """

    region = attr.ib(default=None)
    playerId = attr.ib(default=None)


@attr.s(frozen=True)
class Moved:
    """
    A move was played (or, watching a replay, stepped over): C{seat}
    played C{action} in the game's canonical form (a gomoku C{(x, y)},
    a checkers path).  Gomoku adds the stone's C{colour}.
    """

    seat = attr.ib()
    action = attr.ib()
    colour = attr.ib(default=None)


@attr.s(frozen=True)
class Accepted:
    """
    The server took our action.
    """


@attr.s(frozen=True)
class Rejected:
    """
    The server refused our action.
    """


@attr.s(frozen=True)
class Changed:
    """
    Something else to redraw changed.
    """


# gomoku
@attr.s(frozen=True)
class RegisterFailed:
    """
    Gomoku: our registration was refused with C{status}.
    """

    status = attr.ib()


@attr.s(frozen=True)
class RoomsListed:
    """
    Gomoku: a new room list came.
    """


@attr.s(frozen=True)
class RoomFailed:
    """
    Gomoku: creating or joining a room was refused with C{status}.
    """

    status = attr.ib()


@attr.s(frozen=True)
class Lost:
    """
    Gomoku: the connection dropped mid-session; the session may resume.
    """


# checkers
@attr.s(frozen=True)
class Eliminated:
    """
    Checkers: C{seat} ran out of time and is out.
    """

    seat = attr.ib()


@attr.s(frozen=True)
class JoinFailed:
    """
    Checkers: the join was refused with error C{code}.
    """

    code = attr.ib()


# Splendor
@attr.s(frozen=True)
class OperationPlayed:
    """
    Splendor: C{playerId} played C{action} (a L{hub.games.splendor}
    C{Action}).
    """

    playerId = attr.ib()
    action = attr.ib()


@attr.s(frozen=True)
class NobleChoice:
    """
    Splendor: we may choose one of C{nobles}.
    """

    nobles = attr.ib()


@attr.s(frozen=True)
class DiscardAsked:
    """
    Splendor: we must give back C{count} tokens.
    """

    count = attr.ib()


# the auto-player
@attr.s(frozen=True)
class AutoplayChanged:
    """
    AI 托管 was turned on or off.
    """

    enabled = attr.ib()


@attr.s(frozen=True)
class HintReady:
    """
    The suggested C{action}, or None when there is none.
    """

    action = attr.ib()


# a watched game
@attr.s(frozen=True)
class ReplayLoaded:
    """
    A finished game's replay is loaded.
    """


@attr.s(frozen=True)
class WatchError:
    """
    Watching went wrong: C{text} says how; C{final} when it is not tried
    again (the hub answered that the game cannot be watched).
    """

    text = attr.ib()
    final = attr.ib(default=False)


@attr.s(frozen=True)
class GameEnded:
    """
    The watched game ended.
    """


@attr.s(frozen=True)
class Following:
    """
    The watched game's event stream is open.
    """
