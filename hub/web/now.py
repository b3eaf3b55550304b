"""
The hub now, for the lobby page: per game kind, the players online, the
rooms with their members, and the games running.  L{LobbyFeed} builds it
at most once per L{POLL_INTERVAL} whoever asks (the lobby page, C{/api/hub},
the lobby's event stream), encodes it once per build for each form, and
streams it to the lobby pages, sending it again whenever it changed.

No password is ever shown: a room only says whether it has one.  Names
and room ids longer than L{MAX_LISTED_NAME} characters are cut short,
ending in an ellipsis.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Union

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime

from hub.web.stream import Fanout, sseFrame

GAME_KINDS = ("gomoku", "checkers", "splendor")
# Seconds between two looks at the lobby while lobby pages listen.
POLL_INTERVAL = 1.0
# Names, rooms and games listed per kind (their counts are always exact):
# what the lobby document costs to build, send and show is bounded
# however many connections the hub holds.
MAX_NAMES = 200
MAX_ROOMS = 200
MAX_GAMES = 200
# Characters of a name or room id in a list: a longer one is cut to this
# length, its last character an ellipsis (a room id may be long, and the
# lobby lists every room).
MAX_LISTED_NAME = 40
ELLIPSIS = "\N{HORIZONTAL ELLIPSIS}"


def listedName(name: str) -> Any:
    """
    C{name} as a list shows it: at most L{MAX_LISTED_NAME} characters,
    the last an ellipsis if it was cut (None stays None).
    """
    if name is None or len(name) <= MAX_LISTED_NAME:
        return name
    return name[:MAX_LISTED_NAME - 1] + ELLIPSIS


def listedGame(summary: Any) -> Any:
    """
    A game's summary (L{hub.web.live.LiveGame.summary}) as a list shows
    it: its table and players' names cut by L{listedName}.
    """
    return dict(summary, table=listedName(summary["table"]),
                players=[listedName(n) for n in summary["players"]])


def roomJSON(room: Any, spectating: Any, displays: Any = None) -> Any:
    """
    One room: its name, members (name, ready flag, seat, bot, guest: no
    account's name, L{hub.accounts}; an account's display name, if held
    by C{displays}, a L{hub.accounts.displays.DisplayNames}), owner,
    capacity, whether it has a password, its state, and its live game.
    """
    game = spectating.gameOf(room.table) if room.table is not None else None
    seats = game.seats if game is not None else []
    bySeat = {s["index"]: s for s in seats}
    members = []
    for member in room.members:
        seat = bySeat.get(member.seat, {})
        account = member.session is not None and not member.session.guest
        members.append({"name": listedName(member.name or seat.get("name")),
                        "display": (displays.known(member.name)
                                    if account and displays is not None
                                    else None),
                        "ready": bool(member.ready),
                        "seat": member.seat,
                        "bot": bool(seat.get("bot") or seat.get("takenOver")),
                        "guest": member.session is not None
                        and bool(member.session.guest)})
    return {
        "name": listedName(room.name),
        "members": members,
        "owner": (listedName(room.owner.name) if room.owner is not None
                  else None),
        "capacity": room.capacity,
        "locked": bool(room.password),
        "state": "playing" if room.running else "waiting",
        "game": game.id if game is not None else None,
        "botSeats": [s["index"] for s in seats
                     if s["bot"] or s["takenOver"]],
    }


def hubNow(lobby: Any, sessions: Any, spectating: Any,
           displays: Any = None) -> Any:
    """
    The hub now, as JSON: per kind, the players online (their count, and
    at most L{MAX_NAMES} names), the rooms (their count, and the newest
    L{MAX_ROOMS}) and the games running (their count, and the newest
    L{MAX_GAMES}); the display names of the rooms' members that
    C{displays} holds (the others' are read for the next build).
    """
    online: Any = {kind: [] for kind in GAME_KINDS}
    counts = dict.fromkeys(GAME_KINDS, 0)
    for session in sessions:
        counts[session.kind] = counts.get(session.kind, 0) + 1
        names = online.setdefault(session.kind, [])
        if session.name is not None and len(names) < MAX_NAMES:
            names.append(listedName(session.name))
    kinds = {}
    for kind in GAME_KINDS:
        games = [g for g in spectating.running() if g.kind == kind]
        rooms = lobby.rooms(kind)
        kinds[kind] = {
            "online": counts.get(kind, 0),
            "players": sorted(online.get(kind, [])),
            "rooms": [roomJSON(room, spectating, displays)
                      for room in _newest(rooms, MAX_ROOMS)],
            "roomCount": len(rooms),
            "games": [listedGame(g.summary())
                      for g in _newest(games, MAX_GAMES)],
            "gameCount": len(games),
        }
    return {"kinds": kinds}


def _newest(things: Any, count: int) -> Any:
    # The last count of a list oldest first: the rooms people may join
    # now, the games just begun.
    return things[-count:] if len(things) > count else things


class SharedResult:
    """
    The result of one Deferred, for any number of waiters, before or after
    it fires.
    """

    def __init__(self, d: Deferred[Any]) -> None:
        self._result = None
        self._waiters: Any = []
        d.addBoth(self._fired)

    def _fired(self, result: Any) -> None:
        self._result = result
        waiters, self._waiters = self._waiters, None
        for waiter in waiters:
            waiter.callback(result)

    def wait(self) -> Any:
        """
        A new Deferred of the result.
        """
        if self._waiters is None:
            return defer.succeed(self._result)
        waiter: Any = defer.Deferred()
        self._waiters.append(waiter)
        return waiter


def hubFrame(now: Any) -> Any:
    """
    The lobby stream's message of the hub now C{now}.

    @rtype: L{bytes}
    """
    return sseFrame("hub", now)


class LobbyFeed:
    """
    The hub now (L{hubNow}), built at most once per C{interval} seconds
    however many ask for it, and streamed to the lobby pages: the whole of
    it on connection, then again whenever it changed (looked at every
    C{interval} seconds, only while some page listens).

    @ivar builds: how many times the hub now was built.
    """

    def __init__(self, lobby: Any, sessions: Any, spectating: Any,
                 clock: IReactorTime, interval: float = POLL_INTERVAL,
                 displays: Any = None) -> None:
        #: The accounts' display names
        #: (L{hub.accounts.displays.DisplayNames}) of a web face with
        #: accounts, or None.
        self.displays = displays
        self.lobby = lobby
        self.sessions = sessions
        self.spectating = spectating
        self.clock = clock
        self.interval = interval
        self.fanout = Fanout(clock)
        self.builds = 0
        self._now = None
        self._builtAt: Optional[float] = None
        self._encoded: Dict[Any, Any] = {}
        self._last = None
        self._call: Optional[IDelayedCall] = None
        self.stopped = False

    def now(self) -> Any:
        """
        L{hubNow} of this hub, as built at most C{interval} seconds ago
        (shared: not to be changed).
        """
        at = self.clock.seconds()
        if self._now is None or at - self._builtAt >= self.interval:
            self._now = hubNow(self.lobby, self.sessions, self.spectating,
                               self.displays)
            self._builtAt = at
            self._encoded = {}
            self.builds += 1
        return self._now

    def encoded(self, encode: Any) -> Any:
        """
        C{encode(self.now())}, encoded once per build of the hub now.

        @param encode: a function of the hub now (the same one each time:
            it keys the cache), e.g. L{hubFrame}.
        """
        now = self.now()
        body = self._encoded.get(encode)
        if body is None:
            body = self._encoded[encode] = encode(now)
        return body

    def rendered(self, render: Any) -> Union[bytes, int]:
        """
        A Deferred of C{render(self.now())}'s result, C{render} returning a
        Deferred (a page flattened over several reactor turns): rendered
        once per build of the hub now, and shared by every request that
        asks meanwhile.

        @param render: as C{encode} for L{encoded}.
        """
        now = self.now()
        shared = self._encoded.get(render)
        if shared is None:
            shared = self._encoded[render] = SharedResult(render(now))
        return shared.wait()

    def addStream(self, stream: Any) -> None:
        """
        Send C{stream} the hub now, then every change.
        """
        frame = self.encoded(hubFrame)
        stream.write(frame)
        self.fanout.add(stream)
        if self._call is None and not self.stopped:
            self._last = frame
            self._call = self.clock.callLater(self.interval, self._look)

    def removeStream(self, stream: Any) -> None:
        """
        C{stream} is gone.
        """
        self.fanout.discard(stream)

    def _look(self) -> None:
        self._call = None
        if not len(self.fanout):
            return
        frame = self.encoded(hubFrame)
        if frame != self._last:
            self._last = frame
            self.fanout.send(frame)
        self._call = self.clock.callLater(self.interval, self._look)

    def stop(self) -> None:
        """
        Stop looking.
        """
        self.stopped = True
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
        self.fanout.stop()
