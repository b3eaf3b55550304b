"""
The JSON admin API under C{/api/admin/}, authenticated by an API token
(C{Authorization: Bearer TOKEN}; made with C{python -m hub.accounts token
NAME}, expiring, kept only as its SHA-256).  The token's account and
role are read again on every request (and its use noted): no token, an
unknown or expired one is a 401, a player's (or a moderator's, for an
admin's action) a 403, an action the rules of roles refuse a 403 too.
No cookie is read, so no CSRF token is needed.

An action's body holds its fields and no others (a command line, a path
or an environment is refused with 400: engines are the operator's).
Every endpoint, its fields and its answer: docs/accounts.md, "The JSON
admin API".
"""

from __future__ import annotations

import json
from typing import Any, Generator, Union

from twisted.internet.defer import Deferred
from twisted.internet import defer
from twisted.web import resource, server
from twisted.python.failure import Failure
from twisted.web.server import Request

from hub.accounts.moderation import mayAdminister, mayModerate
from hub.accounts.store import AccountError
from hub.accounts.store import Refused as RolesRefused
from hub.web.api import NotFound, sendJSON
from hub.web.adminactions import (
    ACTIONS, auditData, connectionsData, perform, registeredEngines,
    roomsData, tokensData)
from hub.web.errors import errorsOf

#: The largest request body read (bytes).
MAX_BODY = 16384


def bearer(request: Request) -> Any:
    """
    The token of C{request}'s C{Authorization: Bearer} header, or None.
    """
    header: Any = request.getHeader(b"authorization")
    if not header:
        return None
    header = header.decode("latin-1")
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def bodyFields(request: Request) -> Any:
    """
    The JSON object of C{request}'s body, as a dict of text.

    @raise AccountError: it is not a JSON object.
    """
    raw = request.content.read(MAX_BODY + 1) if request.content else b""
    if len(raw) > MAX_BODY:
        raise AccountError("the body is too long")
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise AccountError("the body is not JSON")
    if not isinstance(data, dict):
        raise AccountError("the body is not a JSON object")
    return {str(k): "" if v is None else str(v) for k, v in data.items()}


class Refused(Exception):
    """
    A request refused: C{code} and C{error}.
    """

    def __init__(self, code: Any, error: Any) -> None:
        Exception.__init__(self, error)
        self.code = code
        self.error = error


class Endpoint(resource.Resource):
    """
    One endpoint: C{method} only, for callers whose role C{allowed}
    accepts; C{answer(actor, request)} is a Deferred of its JSON (the
    caller as an L{hub.accounts.store.Actor}).
    """

    isLeaf = True

    def __init__(self, auth: Any, method: bytes, allowed: Any,
                 answer: Any) -> None:
        resource.Resource.__init__(self)
        self.auth = auth
        self.method = method
        self.allowed = allowed
        self.answer = answer

    def render(self, request: Request) -> Union[bytes, int]:
        if request.method != self.method:
            request.setHeader(b"Allow", self.method)
            return sendJSON(request, {"error": "method not allowed"}, 405)

        @defer.inlineCallbacks
        def work() -> Generator[Any, Any, Any]:
            visitor = yield self.auth.sessions.tokenVisitor(bearer(request))
            if visitor is None:
                raise Refused(401, "an admin API token is needed")
            if not self.allowed(visitor.role):
                raise Refused(403, "your role may not do this")
            data = yield self.answer(self.auth.actor(request, visitor),
                                     request)
            return data

        def refuse(failure: Failure) -> Any:
            failure.trap(Refused, AccountError)
            if failure.check(RolesRefused):
                return 403, {"error": str(failure.value)}
            if failure.check(Refused):
                if failure.value.code == 401:
                    request.setHeader(b"WWW-Authenticate", b"Bearer")
                return failure.value.code, {"error": failure.value.error}
            return 400, {"error": str(failure.value)}

        def done(answer: Any) -> None:
            code, data = answer
            if not gone:
                request.write(sendJSON(request, data, code))
                request.finish()

        def failed(failure: Failure) -> None:
            errors = errorsOf(request)
            if errors is not None:
                errors.failed(request, failure)
            if not (gone or request.startedWriting):
                request.write(sendJSON(request, {"error": "unavailable"},
                                       503))
                request.finish()

        gone = []
        request.notifyFinish().addErrback(lambda _: gone.append(True))
        d = defer.maybeDeferred(work).addCallback(lambda data: (200, data))
        d.addErrback(refuse).addCallback(done).addErrback(failed)
        return server.NOT_DONE_YET


class AdminAPI(resource.Resource):
    """
    C{/api/admin/...}, over the accounts of C{auth} and the hub's
    C{events} (L{hub.web.interfaces.ITournamentsWeb}, or None).
    """

    def __init__(self, auth: Any, events: Any = None) -> None:
        resource.Resource.__init__(self)
        moderation = auth.moderation

        def connections(actor: Any, request: Request) -> Any:
            return {"connections": connectionsData(moderation)}

        def rooms(actor: Any, request: Request) -> Any:
            return {"rooms": roomsData(moderation)}

        def audit(actor: Any, request: Request) -> Deferred[Any]:
            return auth.accounts.audit().addCallback(
                lambda entries: {"audit": auditData(entries)})

        def tokens(actor: Any, request: Request) -> Deferred[Any]:
            return auth.sessions.tokens().addCallback(
                lambda found: {"tokens": tokensData(found)})

        self.putChild(b"connections",
                      Endpoint(auth, b"GET", mayModerate, connections))
        self.putChild(b"rooms", Endpoint(auth, b"GET", mayModerate, rooms))
        def engines(actor: Any, request: Request) -> Deferred[Any]:
            return registeredEngines(events).addCallback(
                lambda found: {"engines": found})

        self.putChild(b"audit", Endpoint(auth, b"GET", mayModerate, audit))
        self.putChild(b"engines",
                      Endpoint(auth, b"GET", mayAdminister, engines))
        self.putChild(b"tokens", Endpoint(auth, b"GET", mayAdminister,
                                          tokens))
        for name, (allowed, _) in ACTIONS.items():
            self.putChild(name.encode("ascii"), Endpoint(
                auth, b"POST", allowed,
                lambda actor, request, name=name: perform(
                    auth, events, actor, name, bodyFields(request))))

    def getChild(self, name: bytes, request: Request) -> resource.IResource:
        return NotFound()

    def render(self, request: Request) -> Union[bytes, int]:
        return NotFound().render(request)
