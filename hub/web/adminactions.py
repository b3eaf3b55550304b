"""
What moderators and admins may do from the web face, shared by the
C{/admin} pages (L{hub.web.admin}) and the JSON admin API
(L{hub.web.adminapi}): each action names the role check it needs, which
its caller makes on every request, and runs through the hub's
L{hub.accounts.moderation.Moderation} (audited there).

Each action takes the caller's L{hub.web.auth.WebAuth}, the hub's
events (L{hub.web.interfaces.ITournamentsWeb}, or None), the acting
account (an L{hub.accounts.store.Actor}: its name, role and client
address, for the rules of roles and the audit) and the request's fields
(a dict of text) and answers with a Deferred of a dict (the JSON API's
answer).  Each names its fields (L{FIELDS}): any other field refuses
the request, so that none can carry a command line, a path or an
environment (engines are the operator's: the web chooses among
registered ones by name).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Optional

from twisted.internet.defer import Deferred
from twisted.internet import defer
from twisted.python.failure import Failure

from hub.accounts.cli import DURATION_WORDS, parseDuration
from hub.accounts.moderation import mayAdminister, mayModerate
from hub.accounts.store import AccountError
from hub.web.i18n import N_


class BadRequest(AccountError):
    """
    The fields of an action are missing or malformed (its text says
    which).
    """


def required(fields: Dict[str, str], name: str) -> Any:
    """
    The non-empty field C{name} of C{fields}.

    @raise BadRequest: it is missing.
    """
    value = str(fields.get(name, "")).strip()
    if not value:
        raise BadRequest(N_("{0} is needed"), name)
    return value


def kick(auth: Any, events: Any, actor: Any,
         fields: Dict[str, str]) -> Deferred[Any]:
    try:
        session = int(required(fields, "session"))
    except ValueError:
        raise BadRequest(N_("session is a connection's number"))
    d = auth.moderation.kick(session, actor, fields.get("reason", ""))
    return d.addCallback(lambda _: {"done": "kick", "session": session})


def end(auth: Any, events: Any, actor: Any,
        fields: Dict[str, str]) -> Deferred[Any]:
    kind, room = required(fields, "kind"), required(fields, "room")
    d = auth.moderation.endTable(kind, room, actor, fields.get("reason", ""))
    return d.addCallback(lambda _: {"done": "end", "kind": kind,
                                    "room": room})


def ban(auth: Any, events: Any, actor: Any,
        fields: Dict[str, str]) -> Deferred[Any]:
    target = required(fields, "target")
    duration = required(fields, "for")
    try:
        seconds = parseDuration(duration)
    except ValueError:
        raise BadRequest(DURATION_WORDS)
    d = auth.moderation.ban(target, seconds, required(fields, "reason"),
                            actor)
    return d.addCallback(lambda _: {"done": "ban", "target": target,
                                    "seconds": seconds})


def unban(auth: Any, events: Any, actor: Any,
          fields: Dict[str, str]) -> Deferred[Any]:
    target = required(fields, "target")
    d = auth.moderation.unban(target, actor)
    return d.addCallback(lambda _: {"done": "unban", "target": target})


def role(auth: Any, events: Any, actor: Any,
         fields: Dict[str, str]) -> Deferred[Any]:
    name, value = required(fields, "name"), required(fields, "role")
    d = auth.moderation.setRole(name, value, actor)
    return d.addCallback(lambda _: {"done": "role", "name": name,
                                    "role": value})


def tokenRevoke(auth: Any, events: Any, actor: Any,
                fields: Dict[str, str]) -> Deferred[Any]:
    tokenId = required(fields, "token")
    d = auth.sessions.revokeToken(tokenId, actor)
    return d.addCallback(lambda name: {"done": "token-revoke",
                                       "token": tokenId, "name": name})


def invite(auth: Any, events: Any, actor: Any,
           fields: Dict[str, str]) -> Deferred[Any]:
    d = auth.sessions.newInvite(actor)
    return d.addCallback(lambda code: {"done": "invite", "invite": code})


# Tournament events (admins only; L{hub.tournaments}), as the CLI's
# commands: each writes the event's database and an audit row (never an
# engine's command line, which may hold a play key).

def _events(events: Any) -> Any:
    """
    C{events}, the hub's L{hub.web.interfaces.ITournamentsWeb}.

    @raise BadRequest: the hub runs no events (C{events} is None).
    """
    if events is None:
        raise BadRequest(N_("this hub runs no tournaments"))
    return events


def _number(fields: Dict[str, str], name: str,
            kind: Callable[[str], Any] = int, optional: bool = True) -> Any:
    value = str(fields.get(name, "")).strip()
    if not value:
        if optional:
            return None
        raise BadRequest(N_("{0} is needed"), name)
    try:
        number = kind(value)
    except ValueError:
        raise BadRequest(N_("{0} is a number"), name)
    if number <= 0:
        raise BadRequest(N_("{0} is more than 0"), name)
    return number


def _eventWrite(auth: Any, events: Any, actor: Any, action: str,
                eventId: Optional[int], target: Any, interaction: Any,
                *args: Any) -> Any:
    """
    Run C{interaction} on the events' database, then audit C{action}
    on C{target} (or C{target(result)}).  A refusal of the store's
    (L{store.TournamentError}) is a L{BadRequest} of its template and
    arguments (a page says it in its language).
    """
    from hub.tournaments import store
    events = _events(events)
    d = events.database.runInteraction(interaction, *args, write=True)

    def refused(failure: Failure) -> None:
        failure.trap(store.TournamentError)
        raise BadRequest(failure.value.template, *failure.value.arguments)

    def audited(result: Any) -> Deferred[Any]:
        d = auth.accounts.note(
            action, target(result) if callable(target) else target, "",
            actor)
        return d.addCallback(lambda _: result)

    d.addErrback(refused)
    d.addCallback(audited)
    if eventId is not None:
        d.addCallback(lambda result: (_changed(events, eventId), result)[1])
    return d


def _changed(events: Any, eventId: int) -> Any:
    """
    The event's page hears of an entry at once (the director hears of
    it at its next poll).
    """
    events.eventChanged(eventId)


def eventCreate(auth: Any, events: Any, actor: Any,
                fields: Dict[str, str]) -> Deferred[Any]:
    from hub.tournaments import formats, store
    name, game = required(fields, "name"), required(fields, "game")
    fmt = required(fields, "format")
    if fmt not in formats.FORMATS:
        raise BadRequest(N_("format is one of {0}"),
                         ", ".join(formats.FORMATS))
    players = _number(fields, "players") or (3 if game == "splendor"
                                             else 2)
    args = (name, game, fmt, _number(fields, "rounds"),
            _number(fields, "minutes", float), players,
            _number(fields, "turn-seconds", float), time.time())
    d = _eventWrite(auth, events, actor, "event-create", None,
                    "{} {} {}".format(game, fmt, name),
                    store.createEvent, *args)
    return d.addCallback(lambda eventId: {"done": "event-create",
                                          "event": eventId})


def eventEnter(auth: Any, events: Any, actor: Any,
               fields: Dict[str, str]) -> Deferred[Any]:
    from hub.tournaments import store
    eventId = _number(fields, "event", optional=False)
    name = required(fields, "name")
    guest = str(fields.get("guest", "")).lower() in ("1", "on", "true", "yes")
    d = _eventWrite(auth, events, actor, "event-enter", eventId,
                    lambda entered: "event {} {}{}".format(
                        eventId, entered, " (guest)" if guest else ""),
                    store.enter, eventId, name, time.time(), None, guest)
    return d.addCallback(lambda entered: {
        "done": "event-enter", "event": eventId, "name": entered})


def eventWithdraw(auth: Any, events: Any, actor: Any,
                  fields: Dict[str, str]) -> Deferred[Any]:
    from hub.tournaments import store
    eventId = _number(fields, "event", optional=False)
    name = required(fields, "name")
    d = _eventWrite(auth, events, actor, "event-withdraw", eventId,
                    "event {} {}".format(eventId, name),
                    store.withdraw, eventId, name)
    return d.addCallback(lambda _: {"done": "event-withdraw",
                                    "event": eventId, "name": name})


def eventEngine(auth: Any, events: Any, actor: Any,
                fields: Dict[str, str]) -> Deferred[Any]:
    """
    Enter a registered engine (L{hub.tournaments.catalog}) by its
    C{name}.
    """
    from hub.tournaments import store
    eventId = _number(fields, "event", optional=False)
    name = required(fields, "name")
    d = _eventWrite(auth, events, actor, "event-engine", eventId,
                    "event {} {}".format(eventId, name),
                    store.enter, eventId, name, time.time(), name)
    return d.addCallback(lambda entered: {
        "done": "event-engine", "event": eventId, "name": entered})


def registeredEngines(events: Any) -> Deferred[Any]:
    """
    The registered engines of C{events} (the hub's
    L{hub.web.interfaces.ITournamentsWeb}, or None: none), for the admins
    to choose among: names, protocols and limits (never a command line).

    @return: a Deferred of a list of dicts.
    """
    from hub.tournaments import catalog
    if events is None:
        return defer.succeed([])
    d = events.database.runInteraction(catalog.engines)
    return d.addCallback(lambda specs: [
        {"name": e.name, "protocol": e.protocol,
         "cpuSeconds": e.cpuSeconds, "memoryBytes": e.memoryBytes}
        for e in specs])


def _eventState(action: Any) -> Any:
    def change(auth: Any, events: Any, actor: Any,
               fields: Dict[str, str]) -> Deferred[Any]:
        from hub.tournaments import store
        eventId = _number(fields, "event", optional=False)
        d = _eventWrite(auth, events, actor, "event-" + action, eventId,
                        "event {}".format(eventId), store.requestState,
                        eventId, action, time.time())
        return d.addCallback(lambda event: {
            "done": "event-" + action, "event": eventId,
            "state": event.state})
    change.__name__ = "event" + action.capitalize()
    change.__doc__ = "{} an event (the director picks it up within 2 s).".format(
        action.capitalize())
    return change


eventStart = _eventState("start")
eventPause = _eventState("pause")
eventResume = _eventState("resume")


#: The actions: C{name: (role check, function)}.
ACTIONS = {
    "kick": (mayModerate, kick),
    "end": (mayModerate, end),
    "ban": (mayModerate, ban),
    "unban": (mayModerate, unban),
    "role": (mayAdminister, role),
    "invite": (mayAdminister, invite),
    "token-revoke": (mayAdminister, tokenRevoke),
    "event-create": (mayAdminister, eventCreate),
    "event-enter": (mayAdminister, eventEnter),
    "event-withdraw": (mayAdminister, eventWithdraw),
    "event-engine": (mayAdminister, eventEngine),
    "event-start": (mayAdminister, eventStart),
    "event-pause": (mayAdminister, eventPause),
    "event-resume": (mayAdminister, eventResume),
}

#: The actions on tournament events (their page: C{/admin/tournaments}).
EVENT_ACTIONS = tuple(name for name in ACTIONS if name.startswith("event-"))

#: The fields each action takes, and no others.
FIELDS = {
    "kick": ("session", "reason"),
    "end": ("kind", "room", "reason"),
    "ban": ("target", "for", "reason"),
    "unban": ("target",),
    "role": ("name", "role"),
    "invite": (),
    "token-revoke": ("token",),
    "event-create": ("name", "game", "format", "players", "rounds",
                     "minutes", "turn-seconds"),
    "event-enter": ("event", "name", "guest"),
    "event-withdraw": ("event", "name"),
    "event-engine": ("event", "name"),
    "event-start": ("event",),
    "event-pause": ("event",),
    "event-resume": ("event",),
}


def checkFields(name: str, fields: Dict[str, str]) -> None:
    """
    Refuse C{fields} if one of them is not among action C{name}'s.

    @raise BadRequest: naming the first such field.
    """
    for field in sorted(fields):
        if field not in FIELDS[name]:
            raise BadRequest(N_("{0} takes no field {1!r}"), name,
                             field[:40])


def perform(auth: Any, events: Any, actor: Any, name: str,
            fields: Dict[str, str]) -> Deferred[Any]:
    """
    Do action C{name} as C{actor} (an L{hub.accounts.store.Actor}, whose
    role the caller checked with the action's check, this request), on
    the accounts of C{auth} and the events C{events} (or None).

    @return: a Deferred of the action's answer; it fails with
        L{AccountError} (L{BadRequest}) for what the caller asked wrong,
        or L{hub.accounts.store.Refused} for what the rules of roles
        refuse.
    """
    def act() -> Any:
        checkFields(name, fields)
        return ACTIONS[name][1](auth, events, actor, fields)
    return defer.maybeDeferred(act)


def connectionsData(moderation: Any) -> Any:
    """
    The live connections, as the JSON API and C{/admin} list them.
    """
    return [{"session": c.sessionId, "name": c.name, "guest": c.guest,
             "address": c.address, "protocol": c.kind, "room": c.room,
             "since": c.since} for c in moderation.connections()]


def roomsData(moderation: Any) -> Any:
    """
    The rooms and their tables.
    """
    return [{"kind": room.kind, "name": room.name,
             "members": [member.name for member in room.members],
             "capacity": room.capacity, "running": room.running}
            for room in moderation.lobby.allRooms()]


def auditData(entries: Any) -> Any:
    """
    Audit entries (L{hub.accounts.store.AuditEntry}) as JSON.
    """
    return [{"at": e.at, "actor": e.actor, "action": e.action,
             "target": e.target, "reason": e.reason, "address": e.address}
            for e in entries]


def tokensData(tokens: Any) -> Any:
    """
    Admin API tokens (L{hub.accounts.websessions.TokenInfo}) as JSON: their
    ids, never the tokens.
    """
    return [{"token": t.tokenId, "name": t.name, "label": t.label,
             "created": t.createdAt, "lastUsed": t.lastUsed,
             "expires": t.expiresAt} for t in tokens]
