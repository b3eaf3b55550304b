"""
What moderators and admins do to a running hub, each action audited: the
core that C{/admin} and the JSON admin API call (they check the caller's
role with L{mayModerate} and L{mayAdminister} on every request).

    moderation = Moderation(accounts, names, lobby, sessions)
    moderation.connections()                 # [LiveConnection, ...]
    yield moderation.kick(12, "mod", "abuse")
    yield moderation.endTable("checkers", "room1", "mod", "stuck")
    yield moderation.ban("alice", 3600, "abuse", "mod")   # or a CIDR
    yield moderation.setRole("bob", "moderator", "admin")
"""

import attr
from twisted.internet import defer

from hub.accounts.check import peerHost
from hub.accounts.store import AccountError

MODERATOR_ROLES = ("moderator", "admin")


def mayModerate(role):
    """
    Whether C{role} may kick, end tables, ban and unban.
    """
    return role in MODERATOR_ROLES


def mayAdminister(role):
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

    sessionId = attr.ib()
    kind = attr.ib()
    name = attr.ib()
    guest = attr.ib()
    address = attr.ib()
    room = attr.ib()
    since = attr.ib()


class Moderation:
    """
    The moderation of one hub.

    @param accounts: the L{hub.accounts.model.Accounts}.
    @param names: the L{hub.accounts.check.NameService}, or None (then a
        ban reaches live connections only through a hub that checks
        names).
    @param lobby: the hub's L{hub.lobby.Lobby}.
    @param sessions: the hub's L{hub.sessions.Sessions}.
    """

    def __init__(self, accounts, names, lobby, sessions):
        self.accounts = accounts
        self.names = names
        self.lobby = lobby
        self.sessions = sessions

    def connections(self):
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

    def kick(self, sessionId, actor, reason):
        """
        Close the connection of session C{sessionId} the way its protocol
        closes any (the game's own rules then apply: grace, forfeit,
        takeover).

        @return: a Deferred that fires once audited.
        """
        for session in self.sessions:
            if session.id == sessionId and session.peer is not None:
                session.peer.transport.loseConnection()
                return self.accounts.note(
                    "kick", "{} {} #{}".format(session.kind, session.label,
                                               session.id), reason, actor)
        return defer.fail(AccountError("no connection #{}".format(
            sessionId)))

    def endTable(self, kind, roomName, actor, reason):
        """
        End the game of room C{roomName} as abandoned.

        @return: a Deferred that fires once audited.
        """
        room = self.lobby.room(kind, roomName)
        if room is None or room.table is None:
            return defer.fail(AccountError("no game in {} room {!r}".format(
                kind, roomName)))
        room.table.abandon()
        return self.accounts.note("end", "{} {}".format(kind, roomName),
                                  reason, actor)

    @defer.inlineCallbacks
    def ban(self, target, seconds, reason, actor):
        """
        Ban an account or a CIDR for C{seconds}; this hub's connections it
        covers are closed at once (the others' within the refresh).
        """
        yield self.accounts.ban(target, seconds, reason, actor)
        if self.names is not None:
            yield self.names.refresh()

    @defer.inlineCallbacks
    def unban(self, target, actor):
        """
        Lift the ban of an account or a CIDR.
        """
        yield self.accounts.unban(target, actor)
        if self.names is not None:
            yield self.names.refresh()

    def setRole(self, name, role, actor):
        """
        Give account C{name} the role C{role} (an admin's action: the
        caller checks L{mayAdminister}).
        """
        return self.accounts.setRole(name, role, actor)
