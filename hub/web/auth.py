"""
Who is at the web face: login sessions in a cookie (L{SESSION_COOKIE}),
the CSRF token of every form, and the limits on guessing passwords.

The cookie's attributes (C{Secure} when L{overTLS}), the CSRF token (an
HMAC of the session's cookie, else of L{FORM_COOKIE}, checked with
L{hmac.compare_digest}) and the login limits
(L{hub.accounts.guesses.GuessLimits}, a try taken before argon2 runs so
that a flood is refused before any hash is made, a lockout answered as
a wrong password): docs/accounts.md, "Web" and "Guessing".  The client's
address is L{clientHost}'s, everywhere.
"""

from __future__ import annotations

from typing import Any, Generator, Optional

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.web.server import Request
from twisted.web.template import Tag, tags
from zope.interface import implementer

from hub.accounts import names
from hub.accounts.guesses import GuessLimits
from hub.accounts.interfaces import (
    IAccounts, IDisplayNames, IModeration, INameService, IWebSessions)
from hub.accounts.store import Actor
from hub.accounts.websessions import WebSessions, csrfMatches, csrfToken
from hub.accounts.websessions import newSecret
from hub.metrics import ReadCounters
from hub.web.interfaces import IWebAuth

SESSION_COOKIE = b"gamehub_session"
FORM_COOKIE = b"gamehub_form"
CSRF_FIELD = "csrf"
REGISTRATION_MODES = ("open", "invite", "closed")
#: Failed logins of one account name from one address before it is
#: limited, and the seconds after which it gets one more.
LOGIN_NAME_BURST = 10
LOGIN_NAME_REFILL_SECONDS = 60.0
#: The same for one address across names (registrations count here too:
#: each costs an argon2 hash).
LOGIN_ADDRESS_BURST = 20
LOGIN_ADDRESS_REFILL_SECONDS = 30.0
#: The results of a login, the label of C{gamehub_web_logins_total}.
LOGIN_RESULTS = ("ok", "failed", "locked", "banned")
#: The longest name or password a form may carry.
MAX_FIELD = 200


def csrfField(token: Any) -> Tag:
    """
    The hidden form field that carries the CSRF token C{token} (a text,
    or a slot of a frozen tree, L{hub.web.frozen}).
    """
    return tags.input(type="hidden", name=CSRF_FIELD, value=token)


def cookieValue(request: Request, name: bytes) -> Optional[str]:
    """
    The text of cookie C{name} of C{request}, or None.
    """
    value = request.getCookie(name)
    if not value:
        return None
    try:
        return value.decode("ascii")
    except UnicodeDecodeError:
        return None


def headerCookie(header: Optional[str], name: str) -> Optional[str]:
    """
    The text of cookie C{name} (text) in the C{Cookie} header C{header}
    (text, or None), or None: for a request that is not Twisted's (the
    WebSocket's opening request, L{hub.web.ws}), read as Twisted's
    C{Request.parseCookies} reads one (C{;}-separated C{name=value}s,
    the last of a name kept) and L{cookieValue} takes it (empty is none).
    """
    found = None
    for part in (header or "").split(";"):
        key, sep, value = part.lstrip().partition("=")
        if sep and key == name:
            found = value
    return found or None


def overTLS(request: Request) -> bool:
    """
    Whether C{request} came over TLS: the web face's own (C{--web-port
    ssl:...}), or a trusted proxy's that ends TLS and says so with
    C{X-Forwarded-Proto: https} (as docs/deploy.md's nginx does:
    L{hub.web.errors.HubRequest.isSecure}).
    """
    return request.isSecure()


def setCookie(request: Request, name: bytes, value: str) -> None:
    """
    Set cookie C{name}: C{HttpOnly}, C{SameSite=Lax}, for the whole site,
    C{Secure} over TLS (L{overTLS}); an empty C{value} clears it.
    """
    extra = {"max_age": "0"} if not value else {}
    request.addCookie(name, value.encode("ascii"), path=b"/",
                      httpOnly=True, secure=overTLS(request),
                      sameSite="lax", **extra)
    # The rest of this request (its page's forms) sees the new cookie.
    if value:
        request.received_cookies[name] = value.encode("ascii")
    else:
        request.received_cookies.pop(name, None)


def field(request: Any, name: str) -> str:
    """
    The text of form field C{name} of a POST (at most L{MAX_FIELD}
    characters), or C{""}.
    """
    values = (request.args or {}).get(name.encode("ascii"))
    if not values:
        return ""
    return values[0].decode("utf-8", "replace")[:MAX_FIELD]


def clientHost(request: Request) -> Optional[str]:
    """
    The address of the client of C{request} (behind a trusted proxy, the
    one it names), or None.
    """
    return getattr(request.getClientAddress(), "host", None)


@implementer(IWebAuth)
class WebAuth:
    """
    The accounts of one web face.

    @ivar accounts: the L{hub.accounts.model.Accounts}.
    @ivar sessions: the L{WebSessions}.
    @ivar moderation: the hub's L{hub.accounts.moderation.Moderation}.
    @ivar registration: C{open}, C{invite} or C{closed}.
    @ivar names: the hub's L{hub.accounts.check.NameService} (the
        C{--names} rules of browser play, L{hub.web.play}), or None.
    @ivar logins: logins so far, by result.
    @ivar csrfRefused: requests refused for their CSRF token.
    @ivar registrations: accounts registered on the web face.
    @ivar displays: the pages' display names
        (L{hub.accounts.displays.DisplayNames}), or None.
    """

    def __init__(self, accounts: IAccounts, sessions: IWebSessions,
                 moderation: IModeration, clock: IReactorTime,
                 registration: str = "open",
                 names: Optional[INameService] = None,
                 displays: Optional[IDisplayNames] = None) -> None:
        if registration not in REGISTRATION_MODES:
            raise ValueError("registration is one of " +
                             ", ".join(REGISTRATION_MODES))
        self.accounts = accounts
        self.sessions = sessions
        self.moderation = moderation
        self.clock = clock
        self.registration = registration
        self.names = names
        self.displays = displays
        self.limits = GuessLimits(
            clock, LOGIN_NAME_BURST, LOGIN_NAME_REFILL_SECONDS,
            LOGIN_ADDRESS_BURST, LOGIN_ADDRESS_REFILL_SECONDS)
        self.logins = dict.fromkeys(LOGIN_RESULTS, 0)
        self.csrfRefused = 0
        self.registrations = 0

    def register(self, name: str, password: str,
                 invite: Optional[str]) -> Deferred[Any]:
        """
        Register the account C{name} (with C{invite} when registration
        is by invitation), counted: a Deferred of its play key.
        """
        def counted(key: Any) -> Any:
            self.registrations += 1
            return key
        d: Deferred[Any] = self.sessions.register(self.accounts, name,
                                                  password, invite)
        return d.addCallback(counted)

    def visitor(self, request: Request) -> Deferred[Any]:
        """
        A Deferred of the L{hub.accounts.websessions.Visitor} of
        C{request}'s session (read again at every request), or None.
        """
        return self.sessions.find(cookieValue(request, SESSION_COOKIE))

    def cookieVisitor(self, header: Optional[str]) -> Deferred[Any]:
        """
        A Deferred of the L{hub.accounts.websessions.Visitor} of the
        session whose id the C{Cookie} header C{header} (text, or None)
        holds, or None; a banned account's visitor too, marked C{banned}
        (for the browser's play to refuse it, L{hub.web.play}).
        """
        return self.sessions.find(
            headerCookie(header, SESSION_COOKIE.decode("ascii")),
            banned=True)

    def actor(self, request: Request, visitor: Any) -> Actor:
        """
        C{visitor} (a L{hub.accounts.websessions.Visitor}) acting through
        C{request}: an L{hub.accounts.store.Actor} with its role and its
        client's address (for the rules of roles and the audit).
        """
        return Actor(visitor.name, visitor.role, clientHost(request))

    def watchSession(self, visitor: Any, ended: Any) -> Any:
        """
        Call C{ended()} once the session of C{visitor} (read by
        L{cookieVisitor}) has ended (L{WebSessions.watch}).

        @return: the watch (its C{stop} ends it).
        """
        return self.sessions.watch(visitor, ended)

    def formSeed(self, request: Request) -> str:
        """
        The secret the CSRF token of C{request}'s browser derives from:
        its session id, else its form cookie (given now if it has none).
        """
        seed = cookieValue(request, SESSION_COOKIE) or \
            cookieValue(request, FORM_COOKIE)
        if seed is None:
            seed = newSecret()
            setCookie(request, FORM_COOKIE, seed)
        return seed

    def csrfValue(self, request: Request) -> str:
        """
        C{request}'s CSRF token (of its browser's session, or form cookie),
        the value of its forms' L{csrfField}.
        """
        return csrfToken(self.formSeed(request))

    def csrfInput(self, request: Request) -> Tag:
        """
        The hidden form field that carries C{request}'s CSRF token.
        """
        return csrfField(self.csrfValue(request))

    def csrfValid(self, request: Request) -> bool:
        """
        Whether the POST C{request} carries its browser's CSRF token: that
        of its session cookie when it has one (never the form cookie's
        then), else its form cookie's; counted when not.
        """
        seed = cookieValue(request, SESSION_COOKIE) or \
            cookieValue(request, FORM_COOKIE)
        if csrfMatches(seed, field(request, CSRF_FIELD)):
            return True
        self.csrfRefused += 1
        return False

    @defer.inlineCallbacks
    def checkPassword(self, request: Request, name: str,
                      password: str) -> Generator[Any, Any, Any]:
        """
        Whether C{password} is that of C{name} (argon2 off the reactor
        thread), after the name's delay, unless C{request}'s address is
        past its limit of failures, or its limit for the name: then not,
        whatever the password.

        @return: a Deferred of C{ok}, C{failed} or C{locked}.
        """
        account = names.nameKey(name)
        host = clientHost(request)
        go = yield self.limits.wait(account, host)
        if not go or self.limits.locked(account, host):
            return "locked"
        # The try is taken before argon2 runs and given back if right: a
        # flood of logins in flight at once from one address, or at one
        # name, is refused past its limit without hashing, as one after
        # the other would be.
        self.limits.fail(account, host)
        right = yield self.accounts.checkPassword(name, password)
        if not right:
            return "failed"
        self.limits.refund(account, host)
        return "ok"

    @defer.inlineCallbacks
    def startSession(self, request: Request,
                     name: str) -> Generator[Any, Any, Any]:
        """
        Open a new session of C{name} and set its cookie (a new id at every
        login; the account's other sessions end, unless it keeps them).

        @return: a Deferred of its L{hub.accounts.websessions.Visitor}, or
            None (no session: the account is banned).
        """
        raw = yield self.sessions.open(name)
        visitor = yield self.sessions.find(raw)
        if visitor is None:
            yield self.sessions.close(raw)
            return None
        setCookie(request, SESSION_COOKIE, raw)
        return visitor

    @defer.inlineCallbacks
    def login(self, request: Request, name: str,
              password: str) -> Generator[Any, Any, Any]:
        """
        Check C{name} and C{password} (L{checkPassword}) and, if right,
        open a new session and set its cookie.

        @return: a Deferred of one of L{LOGIN_RESULTS}.
        """
        result = yield self.checkPassword(request, name, password)
        if result == "ok":
            visitor = yield self.startSession(request, name)
            if visitor is None:
                result = "banned"
        self.logins[result] += 1
        return result

    def registrationLimited(self, request: Request) -> bool:
        """
        Whether C{request}'s address is past its limit; if not, a
        registration takes one of its tries (each costs an argon2 hash).
        """
        host = clientHost(request)
        if self.limits.addressLocked(host):
            return True
        self.limits.failAddress(host)
        return False

    @defer.inlineCallbacks
    def logout(self, request: Request) -> Generator[Any, Any, Any]:
        """
        End every session of C{request}'s account (and their live
        sockets), or the cookie's session alone if it is no account's
        now, and clear its cookie.
        """
        raw = cookieValue(request, SESSION_COOKIE)
        visitor = yield self.sessions.find(raw, banned=True)
        if visitor is not None:
            yield self.sessions.endAll(visitor.name)
        else:
            yield self.sessions.close(raw)
        setCookie(request, SESSION_COOKIE, "")

    def collector(self) -> ReadCounters:
        """
        The Prometheus collector of the logins.
        """
        return webAuthCollector(self)


def webAuthCollector(auth: WebAuth) -> ReadCounters:
    """
    gamehub_web_logins_total{result}, gamehub_web_csrf_refused_total and
    gamehub_web_registrations_total, read from C{auth} (a L{WebAuth}).
    """
    return ReadCounters(labelled=[(
        "gamehub_web_logins", "Logins on the web face, by result (ok, "
        "failed, locked: past the limit of the name or the address, "
        "banned).", "result", lambda: auth.logins)], plain=[
        ("gamehub_web_csrf_refused", "Web requests that change state "
         "refused for a missing or wrong CSRF token.",
         lambda: auth.csrfRefused),
        ("gamehub_web_registrations", "Accounts registered on the web "
         "face.", lambda: auth.registrations)])


def webAuth(names: Any, clock: IReactorTime,
            registration: str = "open") -> Optional[WebAuth]:
    """
    The L{WebAuth} of a hub whose name service is C{names} (a
    L{hub.accounts.check.NameService}), or None without one (C{--names
    open}, C{--db none}: the web face has no accounts pages).
    """
    if names is None:
        return None
    return WebAuth(names.accounts,
                   WebSessions(names.accounts.database, clock),
                   names.moderation, clock, registration, names,
                   displayNames(names, clock))


def displayNames(names: Any, clock: IReactorTime) -> Any:
    """
    The accounts' display names the pages show
    (L{hub.accounts.displays.DisplayNames}), forgotten as the name check
    C{names} reads the accounts' changes.
    """
    from hub.accounts.displays import DisplayNames
    displays = DisplayNames(names.accounts, clock)
    names.watchChanges(displays.changed)
    return displays
