"""
What moderators and admins may do from the web face, shared by the
C{/admin} pages (L{hub.web.admin}) and the JSON admin API
(L{hub.web.adminapi}): each action names the role check it needs, which
its caller makes on every request, and runs through the hub's
L{hub.accounts.moderation.Moderation} (audited there).

Each action takes the caller's L{hub.web.auth.WebAuth}, the acting
account's name and the request's fields (a dict of text) and answers
with a Deferred of a dict (the JSON API's answer).
"""

from twisted.internet import defer
from twisted.python import usage

from hub.accounts.cli import parseDuration
from hub.accounts.moderation import mayAdminister, mayModerate
from hub.accounts.store import AccountError


class BadRequest(AccountError):
    """
    The fields of an action are missing or malformed (its text says
    which).
    """


def required(fields, name):
    """
    The non-empty field C{name} of C{fields}.

    @raise BadRequest: it is missing.
    """
    value = str(fields.get(name, "")).strip()
    if not value:
        raise BadRequest("{} is needed".format(name))
    return value


def kick(auth, actor, fields):
    try:
        session = int(required(fields, "session"))
    except ValueError:
        raise BadRequest("session is a connection's number")
    d = auth.moderation.kick(session, actor, fields.get("reason", ""))
    return d.addCallback(lambda _: {"done": "kick", "session": session})


def end(auth, actor, fields):
    kind, room = required(fields, "kind"), required(fields, "room")
    d = auth.moderation.endTable(kind, room, actor, fields.get("reason", ""))
    return d.addCallback(lambda _: {"done": "end", "kind": kind,
                                    "room": room})


def ban(auth, actor, fields):
    target = required(fields, "target")
    try:
        seconds = parseDuration(required(fields, "for"))
    except usage.UsageError as e:
        raise BadRequest(str(e))
    d = auth.moderation.ban(target, seconds, required(fields, "reason"),
                            actor)
    return d.addCallback(lambda _: {"done": "ban", "target": target,
                                    "seconds": seconds})


def unban(auth, actor, fields):
    target = required(fields, "target")
    d = auth.moderation.unban(target, actor)
    return d.addCallback(lambda _: {"done": "unban", "target": target})


def role(auth, actor, fields):
    name, value = required(fields, "name"), required(fields, "role")
    d = auth.moderation.setRole(name, value, actor)
    return d.addCallback(lambda _: {"done": "role", "name": name,
                                    "role": value})


def invite(auth, actor, fields):
    d = auth.sessions.newInvite(actor)
    return d.addCallback(lambda code: {"done": "invite", "invite": code})


#: The actions: C{name: (role check, function)}.
ACTIONS = {
    "kick": (mayModerate, kick),
    "end": (mayModerate, end),
    "ban": (mayModerate, ban),
    "unban": (mayModerate, unban),
    "role": (mayAdminister, role),
    "invite": (mayAdminister, invite),
}


def perform(auth, visitor, name, fields):
    """
    Do action C{name} as C{visitor} (whose role the caller checked with
    the action's check, this request).

    @return: a Deferred of the action's answer; it fails with
        L{AccountError} (L{BadRequest}) for what the caller asked wrong.
    """
    return defer.maybeDeferred(ACTIONS[name][1], auth, visitor.name, fields)


def connectionsData(moderation):
    """
    The live connections, as the JSON API and C{/admin} list them.
    """
    return [{"session": c.sessionId, "name": c.name, "guest": c.guest,
             "address": c.address, "protocol": c.kind, "room": c.room,
             "since": c.since} for c in moderation.connections()]


def roomsData(moderation):
    """
    The rooms and their tables.
    """
    return [{"kind": room.kind, "name": room.name,
             "members": [member.name for member in room.members],
             "capacity": room.capacity, "running": room.running}
            for room in moderation.lobby.allRooms()]


def auditData(entries):
    """
    Audit entries (L{hub.accounts.store.AuditEntry}) as JSON.
    """
    return [{"at": e.at, "actor": e.actor, "action": e.action,
             "target": e.target, "reason": e.reason} for e in entries]
