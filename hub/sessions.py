"""
Who is connected: one L{Session} per player, with identity, name, token,
state, reconnect grace and the idle timeout of connections.  Shared by
every protocol; knows no wire format.
"""

from __future__ import annotations

import itertools
import secrets
from typing import (
    Any, Callable, Dict, Iterator, List, Optional, Protocol, Set, Tuple,
    cast)

import attr
from twisted.application.service import Service
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from hub.ihub import ISession, ISessions
from hub.limits import LOG_BURST, ConnectionGate, Limits, SummaryLog

INVALID_TOKEN = 2 ** 64 - 1


class NameWatcher(Protocol):
    """
    What L{Sessions.addWatcher} tells of registered names (the cluster's
    name directory).
    """

    def nameClaimed(self, kind: str, name: str) -> object:
        ...

    def nameReleased(self, kind: str, name: str) -> object:
        ...


class NameTaken(Exception):
    """
    Another session of the same game kind holds that name.
    """


@implementer(ISession)
@attr.s(eq=False, repr=False)
class Session:
    """
    One player: a live connection, or a lost one within its grace period.
    Only L{Sessions} writes its C{name} and C{token}.

    @ivar peer: the adapter speaking for the player (a protocol instance),
        or None while the connection is lost.
    @ivar state: free for the adapter (e.g. gomoku's INIT/IDLE/ROOM/GAME).
    @ivar wireName: the name field exactly as the player sent it (with its
        play key, L{hub.accounts}), when it differs from C{name}; only
        this player's own connection is ever shown it.
    @ivar guest: True if C{name} is no account's (L{hub.accounts}).
    @ivar account: the case-folded name of the account proven, or None.
    @ivar since: when the connection was made (the sessions' clock).
    """

    id: int = attr.ib()
    kind: str = attr.ib()
    peer: Any = attr.ib()
    name: Optional[str] = attr.ib(default=None)
    token: Optional[int] = attr.ib(default=None)
    state: Any = attr.ib(default=None)
    lost: bool = attr.ib(default=False)
    closed: bool = attr.ib(default=False)
    wireName: Optional[str] = attr.ib(default=None)
    guest: bool = attr.ib(default=False)
    account: Optional[str] = attr.ib(default=None)
    since: Optional[float] = attr.ib(default=None)
    _expiry: Optional[IDelayedCall] = attr.ib(default=None)

    def __repr__(self) -> str:
        return "<Session {} {} {!r}>".format(self.id, self.kind, self.name)

    @property
    def label(self) -> str:
        """
        How logs name the player: the name, or C{#id} before one is known
        (Splendor players have no names).
        """
        return self.name if self.name is not None else "#{}".format(self.id)

    def nameTo(self, viewer: object) -> Optional[str]:
        """
        The name C{viewer} (a session) is shown for this player: the name
        field exactly as sent to the player itself, the plain name to
        everybody else.
        """
        if viewer is self and self.wireName is not None:
            return self.wireName
        return self.name

    def setVerdict(self, wireName: Optional[str], verdict: Any) -> None:
        """
        Remember what the name check (L{hub.accounts.check}) said of the
        name field C{wireName}: a L{hub.accounts.check.Verdict}, or None
        where no name is checked.
        """
        if verdict is None:
            self.wireName, self.guest, self.account = None, False, None
        else:
            self.wireName = wireName if wireName != verdict.name else None
            self.guest, self.account = verdict.guest, verdict.account


@implementer(ISessions)
class Sessions(Service):
    """
    The registry of sessions, a service of the gamehub service tree: when
    it stops, pending reconnect grace timers are cancelled.

    @param clock: an L{IReactorTime} for the reconnect grace timers and
        the idle timeouts.
    @param graceSeconds: how long a lost session waits for its player.
    @param idleSeconds: how long a connection may send nothing before it
        is closed, or 0 for never (none of the three protocols has a
        heartbeat, so a quiet player is not a dead one).
    @param randomBits: a function returning a random integer of the given
        number of bits (L{secrets.randbits} unless a test gives another).
    @param limits: the L{Limits} every connection is held to (none unless
        given).

    @ivar gate: the L{ConnectionGate} counting connections against
        C{limits}.
    """

    log = Logger()

    def __init__(self, clock: IReactorTime, graceSeconds: float = 30,
                 randomBits: Callable[[int], int] = secrets.randbits,
                 idleSeconds: float = 0, limits: Optional[Any] = None
                 ) -> None:
        self.clock = clock
        self.graceSeconds = graceSeconds
        self.idleSeconds = idleSeconds
        self.limits = limits if limits is not None else Limits()
        self.gate = ConnectionGate(self.limits, clock)
        self.summary = SummaryLog(clock, self.log, burst=LOG_BURST)
        self._randomBits = randomBits
        self.ids: Iterator[int] = itertools.count(1)
        self.watchers: List[NameWatcher] = []
        self._live: Dict[int, Session] = {}
        self._byName: Dict[Tuple[str, str], Session] = {}
        self._tokens: Set[int] = set()

    def stopService(self) -> Any:
        """
        Cancel every pending reconnect grace timer; write the log
        summaries under way.
        """
        self.summary.flush()
        self.gate.summary.flush()
        for session in list(self._live.values()):
            if session._expiry is not None:
                session._expiry.cancel()
                session._expiry = None
        return Service.stopService(self)

    def __len__(self) -> int:
        return len(self._live)

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._live.values()))

    def connect(self, kind: str, peer: object) -> Session:
        """
        Open a session for a new connection.
        """
        session = Session(next(self.ids), kind, peer,
                          since=self.clock.seconds())
        self._live[session.id] = session
        return session

    def addWatcher(self, watcher: NameWatcher) -> None:
        """
        Tell C{watcher} of every registered name taken
        (C{watcher.nameClaimed(kind, name)}) and freed
        (C{watcher.nameReleased(kind, name)}): the cluster's name
        directory, L{hub.cluster}.  (Session ids come from C{ids}, an
        iterator the cluster may replace.)
        """
        self.watchers.append(watcher)

    def byName(self, kind: str, name: str) -> Optional[Session]:
        """
        The session of game kind C{kind} holding C{name}, or None.
        """
        return self._byName.get((kind, name))

    def claimName(self, session: ISession, name: str) -> None:
        """
        Give C{session} the unique name C{name} and a fresh token.

        @raise NameTaken: another session of that kind holds C{name}.
        """
        # Every session given here is one that connect made.
        session = cast(Session, session)
        holder = self._byName.get((session.kind, name))
        if holder is not None and holder is not session:
            raise NameTaken(name)
        self._forgetName(session)
        self._byName[(session.kind, name)] = session
        session.name = name
        session.token = self._newToken()
        for watcher in self.watchers:
            watcher.nameClaimed(session.kind, name)
        self.summary.note(
            "{} players registered".format(session.kind),
            "{kind} player {name!r} registered (session {id})",
            kind=session.kind, name=name, id=session.id, event="register")

    def adoptName(self, session: Session, name: str, token: int) -> None:
        """
        Give C{session} the registered name C{name} with the token
        C{token} it already had on another node of the cluster (its
        connection was handed over here, L{hub.cluster.link}).

        @raise NameTaken: a session here holds C{name}.
        """
        holder = self._byName.get((session.kind, name))
        if holder is not None and holder is not session:
            raise NameTaken(name)
        self._forgetName(session)
        self._byName[(session.kind, name)] = session
        session.name = name
        session.token = token
        self._tokens.add(token)
        for watcher in self.watchers:
            watcher.nameClaimed(session.kind, name)

    def setRoomName(self, session: ISession, name: str) -> None:
        """
        Give C{session} the name C{name}, unique within its room only
        (the lobby checks that): it is not registered, and other sessions
        of the kind may hold it too (checkers).
        """
        session.name = name

    def clearName(self, session: Session) -> None:
        """
        C{session} has no name any more; a registered name is freed.
        """
        self._forgetName(session)
        session.name = None
        session.setVerdict(None, None)

    def _newToken(self) -> int:
        while True:
            token = self._randomBits(64)
            if token != INVALID_TOKEN and token not in self._tokens:
                self._tokens.add(token)
                return token

    def lose(self, session: ISession,
             onExpiry: Callable[[Session], object]) -> None:
        """
        The connection of C{session} dropped.  Keep the session for
        C{graceSeconds}; if nobody resumes it by then, call
        C{onExpiry(session)} and forget it.
        """
        # Every session given here is one that connect made.
        session = cast(Session, session)
        session.lost = True
        session.peer = None
        session._expiry = self.clock.callLater(
            self.graceSeconds, self._expire, session, onExpiry)
        self.summary.note(
            "{} players lost".format(session.kind),
            "{kind} player {name!r} lost; {grace}s grace",
            kind=session.kind, name=session.name, grace=self.graceSeconds,
            event="lost")

    def _expire(self, session: Session,
                onExpiry: Callable[[Session], object]) -> None:
        session._expiry = None
        try:
            onExpiry(session)
        finally:
            self.disconnect(session)

    def resume(self, kind: str, name: str, token: int,
               peer: object) -> Optional[Session]:
        """
        Give the session of C{name} with C{token} to C{peer}: a lost
        session within its grace, or a live one whose player reconnected
        before the server noticed the old connection drop (the caller
        closes the old peer).

        @return: the session, or None if no session matches.
        """
        session = self._byName.get((kind, name))
        if session is None or session.token != token:
            return None
        if session._expiry is not None:
            session._expiry.cancel()
            session._expiry = None
        session.lost = False
        session.peer = peer
        self.summary.note("{} players resumed".format(kind),
                          "{kind} player {name!r} resumed", kind=kind,
                          name=name, event="resume")
        return session

    def disconnect(self, session: ISession) -> None:
        """
        Forget C{session} now, freeing its name and token.
        """
        # Every session given here is one that connect made.
        session = cast(Session, session)
        if session.closed:
            return
        if session._expiry is not None:
            session._expiry.cancel()
            session._expiry = None
        self._forgetName(session)
        self._live.pop(session.id, None)
        session.closed = True
        session.peer = None

    def _forgetName(self, session: Session) -> None:
        if session.name is not None:
            if self._byName.get((session.kind, session.name)) is session:
                del self._byName[(session.kind, session.name)]
                for watcher in self.watchers:
                    watcher.nameReleased(session.kind, session.name)
        if session.token is not None:
            self._tokens.discard(session.token)
