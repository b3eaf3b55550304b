"""
What moderators and admins do to a running hub, each action audited: the
core that C{/admin} and the JSON admin API call (they check the caller's
role with L{mayModerate} and L{mayAdminister} on every request).

    moderation = Moderation(accounts, names, lobby, sessions)
    mod = Actor("mod", "moderator", "198.51.100.7")
    yield moderation.kick(12, mod, "abuse")
    yield moderation.ban("alice", 3600, "abuse", mod)   # or a CIDR

The rules of roles (L{hub.accounts.model.mayActOn}) and the messages a
cluster's nodes exchange through C{publish} and L{Moderation.received},
so that a kick or a ban reaches the node holding the connection at once,
are in docs/accounts.md ("The name check at scale").
"""

from __future__ import annotations

import ipaddress
from typing import (
    TYPE_CHECKING, Any, Callable, Dict, Generator, Iterable, List, Optional)

import attr
from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.logger import Logger
from zope.interface import implementer

from hub.accounts.check import openPeer, peerHost
from hub.accounts.interfaces import IModeration
from hub.accounts.store import AccountError, Actor, Actorish, actorOf
from hub.catalogs import N_, Word
from hub.ihub import IPeer

if TYPE_CHECKING:
    from hub.accounts.check import NameService
    from hub.accounts.model import Accounts
    from hub.lobby import Lobby
    from hub.sessions import Session, Sessions

MODERATOR_ROLES = ("moderator", "admin")
#: How a hub in a cluster sends a message to the other nodes.
Publish = Callable[[Dict[str, Any]], Deferred[Any]]


def mayModerate(role: Optional[str]) -> bool:
    """
    Whether C{role} may kick, end tables, ban and unban.
    """
    return role in MODERATOR_ROLES


def mayAdminister(role: Optional[str]) -> bool:
    """
    Whether C{role} may grant and remove roles.
    """
    return role == "admin"


@attr.s(frozen=True)
class LiveConnection:
    """
    One live connection, as C{/admin} lists it (no tokens, no keys).

    @ivar sessionId: the session's id (what L{Moderation.kick} takes).
    @ivar kind: the protocol.
    @ivar name: the name others see, or None (Splendor, before a name).
    @ivar guest: True if the name is no account's.
    @ivar address: the client's address, or None.
    @ivar room: the room's name, or None.
    @ivar since: when it connected (seconds since the epoch).
    """

    sessionId: int = attr.ib()
    kind: str = attr.ib()
    name: Optional[str] = attr.ib()
    guest: bool = attr.ib()
    address: Optional[str] = attr.ib()
    room: Optional[str] = attr.ib()
    since: Optional[float] = attr.ib()


@implementer(IModeration)
class Moderation:
    """
    The moderation of one hub.

    @param accounts: the L{hub.accounts.model.Accounts}.
    @param names: the L{hub.accounts.check.NameService}, or None (then a
        ban reaches live connections only through a hub that checks
        names).
    @param lobby: the hub's L{hub.lobby.Lobby}.
    @param sessions: the hub's L{hub.sessions.Sessions}.

    @ivar publish: None on a hub alone; in a cluster, a callable taking a
        message dict (see the module's docstring) that sends it to the
        other nodes and returns a Deferred.
    """

    log = Logger()

    def __init__(self, accounts: Accounts, names: Optional[NameService],
                 lobby: Lobby, sessions: Sessions,
                 publish: Optional[Publish] = None) -> None:
        self.accounts = accounts
        self.names = names
        self.lobby = lobby
        self.sessions = sessions
        self.publish = publish

    def connections(self) -> List[LiveConnection]:
        """
        The live connections, oldest first.
        """
        found = []
        for session in self.sessions:
            if session.peer is None:
                continue
            room = self.lobby.roomOf(session)
            found.append(LiveConnection(
                session.id, session.kind, session.name, session.guest,
                peerHost(session.peer), room.name if room else None,
                session.since))
        return sorted(found, key=lambda c: c.sessionId)

    @defer.inlineCallbacks
    def kick(self, sessionId: int, actor: Actorish,
             reason: str) -> Generator[Deferred[Any], Any, None]:
        """
        Close the connection of session C{sessionId} the way its protocol
        closes any (the game's own rules then apply: grace, forfeit,
        takeover), unless C{actor} may not act on its account.  In a
        cluster, session ids are the cluster's: a session another node
        holds is kicked there.

        @return: a Deferred that fires once audited.
        """
        actor = actorOf(actor)
        found = self._matching(lambda s: s.id == sessionId)
        if found:
            session = found[0]
            target = "{} {} #{}".format(session.kind, session.label,
                                        sessionId)
            yield self.accounts.checkActor(actor, "kick", target,
                                           session.account)
            self._closeAll(found)
        elif self.publish is not None:
            target = "#{}".format(sessionId)
        else:
            raise AccountError(N_("no connection #{0}"), sessionId)
        self._publish({"action": "kick", "id": sessionId,
                       "actor": actor.name, "role": actor.role})
        yield self.accounts.note("kick", target, reason, actor)

    @defer.inlineCallbacks
    def kickName(self, kind: str, name: str, actor: Actorish,
                 reason: str) -> Generator[Deferred[Any], Any, None]:
        """
        Close the connection that plays as C{name} (the plain name others
        see) in game C{kind}, on this hub or, in a cluster, on whichever
        node holds it (unless C{actor} may not act on its account).

        @return: a Deferred that fires once audited.
        """
        actor = actorOf(actor)
        target = "{} {}".format(kind, name)
        found = self._matching(lambda s: s.kind == kind and s.name == name)
        if not found and self.publish is None:
            raise AccountError(N_("no {0} connection of {1!r}"), Word(kind),
                               name)
        for session in found:
            yield self.accounts.checkActor(actor, "kick", target,
                                           session.account)
        self._closeAll(found)
        self._publish({"action": "kick", "kind": kind, "name": name,
                       "actor": actor.name, "role": actor.role})
        yield self.accounts.note("kick", target, reason, actor)

    def _matching(self, matches: Callable[[Session], bool]) -> List[Session]:
        """
        The sessions of this hub with a live connection that C{matches}.
        """
        return [session for session in list(self.sessions)
                if openPeer(session) is not None and matches(session)]

    @staticmethod
    def _closeAll(sessions: Iterable[Session]) -> None:
        for session in sessions:
            peer = IPeer(session.peer, None)
            if peer is not None:
                peer.closeConnection()

    @defer.inlineCallbacks
    def _closeAllowed(self, matches: Callable[[Session], bool], actor: Actor
                      ) -> Generator[Deferred[Any], Any, List[Session]]:
        """
        Close the live connections of this hub's sessions that C{matches}
        and that C{actor} may act on (a refusal is audited); the sessions
        closed.
        """
        closed = []
        for session in self._matching(matches):
            try:
                yield self.accounts.checkActor(
                    actor, "kick", "{} {}".format(session.kind,
                                                  session.label),
                    session.account)
            except AccountError:
                continue
            self._closeAll([session])
            closed.append(session)
        return closed

    def _publish(self, message: Dict[str, Any]) -> None:
        if self.publish is None:
            return
        d = defer.maybeDeferred(self.publish, message)
        d.addErrback(lambda f: self.log.warn(
            "moderation not published to the cluster ({error}): other "
            "nodes see bans at their next refresh",
            error=f.getErrorMessage()))

    @defer.inlineCallbacks
    def received(self, message: Dict[str, Any]
                 ) -> Generator[Deferred[Any], Any, None]:
        """
        Apply a kick or ban another node of the cluster published (a kick
        as its actor's role allows).

        @return: a Deferred that fires when done.
        """
        action = message.get("action")
        if action == "kick":
            role = message.get("role")
            actor = Actor(str(message.get("actor") or "cluster"),
                          None if role is None else str(role))
            if "id" in message:
                closed = yield self._closeAllowed(
                    lambda s: s.id == message["id"], actor)
            else:
                closed = yield self._closeAllowed(
                    lambda s: (s.kind, s.name) ==
                    (message.get("kind"), message.get("name")), actor)
            for session in closed:
                self.log.info("kicked {kind} connection of {name!r} "
                              "(moderation from the cluster)",
                              kind=session.kind, name=session.label)
        elif action in ("ban", "unban") and self.names is not None:
            yield self.names.refresh()

    def endTable(self, kind: str, roomName: str, actor: Actorish,
                 reason: str) -> Deferred[None]:
        """
        End the game of room C{roomName} as abandoned.

        @return: a Deferred that fires once audited.
        """
        room = self.lobby.room(kind, roomName)
        if room is None or room.table is None:
            return defer.fail(AccountError(N_("no game in {0} room {1!r}"),
                                           Word(kind), roomName))
        room.table.abandon()
        return self.accounts.note("end", "{} {}".format(kind, roomName),
                                  reason, actor)

    @defer.inlineCallbacks
    def ban(self, target: str, seconds: float, reason: str,
            actor: Actorish) -> Generator[Deferred[Any], Any, None]:
        """
        Ban an account or a CIDR for C{seconds}, as the rules of roles
        allow C{actor}, and never a range that holds C{actor}'s own
        address; the connections it covers are closed at once, on this
        hub and (through C{publish}) on the other nodes of a cluster;
        without a cluster, other hubs on the database see it within
        their refresh.
        """
        actor = actorOf(actor)
        if actor.address is not None and coversAddress(target,
                                                       actor.address):
            yield self.accounts.refuse(
                actor, "ban", target,
                N_("that range holds your own address"))
        yield self.accounts.ban(target, seconds, reason, actor)
        self._publish({"action": "ban"})
        if self.names is not None:
            yield self.names.refresh()

    @defer.inlineCallbacks
    def unban(self, target: str,
              actor: Actorish) -> Generator[Deferred[Any], Any, None]:
        """
        Lift the ban of an account (as the rules of roles allow C{actor})
        or a CIDR.
        """
        yield self.accounts.unban(target, actor)
        self._publish({"action": "unban"})
        if self.names is not None:
            yield self.names.refresh()

    def setRole(self, name: str, role: str, actor: Actorish) -> Deferred[None]:
        """
        Give account C{name} the role C{role} (an admin's action: the
        caller checks L{mayAdminister}); never the last admin's loss of
        it.
        """
        return self.accounts.setRole(name, role, actor)


def coversAddress(target: str, address: str) -> bool:
    """
    Whether the ban target C{target} (an address or CIDR, else an account
    name) covers the address C{address}.
    """
    try:
        network = ipaddress.ip_network(target, strict=False)
        host = ipaddress.ip_address(address)
    except ValueError:
        return False
    if host.version == 6 and host.ipv4_mapped is not None:
        host = host.ipv4_mapped
    return host.version == network.version and host in network
