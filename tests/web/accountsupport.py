"""
What the tests of the web face's accounts share: a hub with accounts over
real SQLite (L{tests.accounts.support}) and its web face on a loopback
port, its sessions and limits on a L{Clock}; and a L{Browser} that keeps
cookies and fills forms.
"""

import re
from io import BytesIO
from urllib.parse import urlencode

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.web.client import Agent, FileBodyProducer, readBody
from twisted.web.http_headers import Headers

from hub.accounts.check import NameService
from hub.accounts.moderation import Moderation
from hub.accounts.websessions import WebSessions
from hub.metrics import metricsRegistry
from hub.service import Hub
from hub.web.auth import WebAuth, displayNames

from tests.accounts import support
from tests.web.support import WebHub

PASSWORD = "Correct-Horse-Battery-9"
_CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')
_KEY = re.compile(r'class="play-key">([A-Za-z0-9]+)<')


class Browser:
    """
    An HTTP client that keeps the cookies it is given, as a browser does.

    @ivar cookies: C{{name: value}}.
    @ivar setCookies: every C{Set-Cookie} header received, in order.
    """

    def __init__(self, web, host=None):
        self.web = web
        # From another loopback address (127.0.0.0/8), if given.
        self.agent = Agent(reactor, bindAddress=(host, 0) if host else None)
        self.cookies = {}
        self.setCookies = []

    @defer.inlineCallbacks
    def request(self, method, path, fields=None, headers=None):
        """
        C{method} C{path} (with C{fields} as a form): C{(code, headers,
        text)}.
        """
        sent = Headers()
        if self.cookies:
            sent.addRawHeader(b"cookie", "; ".join(
                "{}={}".format(k, v) for k, v in self.cookies.items()))
        for name, value in (headers or {}).items():
            sent.addRawHeader(name, value)
        body = None
        if fields is not None:
            sent.addRawHeader(b"content-type",
                              b"application/x-www-form-urlencoded")
            body = FileBodyProducer(BytesIO(urlencode(fields).encode()))
        response = yield self.agent.request(
            method, self.web.url(path).encode(), sent, body)
        text = yield readBody(response)
        for header in response.headers.getRawHeaders(b"set-cookie", []):
            header = header.decode("ascii")
            self.setCookies.append(header)
            name, _, rest = header.partition("=")
            value = rest.split(";")[0]
            if "max-age=0" in header.lower() or not value:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        return response.code, response.headers, text.decode("utf-8")

    def get(self, path):
        return self.request(b"GET", path)

    @defer.inlineCallbacks
    def submit(self, formPath, action, fields):
        """
        GET C{formPath}, then POST C{fields} to C{action} with the page's
        CSRF token.
        """
        code, _, page = yield self.get(formPath)
        fields = dict(fields, csrf=csrfOf(page))
        answer = yield self.request(b"POST", action, fields)
        return answer

    def login(self, name, password=PASSWORD):
        return self.submit("/login", "/login", {"name": name,
                                                "password": password})


def csrfOf(page):
    """
    The CSRF token of a page's first form.
    """
    match = _CSRF.search(page)
    assert match is not None, "no csrf field in " + page[:200]
    return match.group(1)


def keyOf(page):
    """
    The play key a page shows.
    """
    match = _KEY.search(page)
    return match.group(1) if match else None


class LogRecorder:
    """
    Every log event's text, while observed.
    """

    def __init__(self, testCase):
        self.events = []
        globalLogPublisher.addObserver(self.events.append)
        testCase.addCleanup(globalLogPublisher.removeObserver,
                            self.events.append)

    def text(self):
        from twisted.logger import formatEvent
        return "\n".join(formatEvent(e) + repr(e) for e in self.events)


def playFactories(hub):
    """
    The three legacy factories of C{hub}, by game kind (whose rooms
    browser players join).
    """
    from hub.protocols.checkers import CheckersFactory
    from hub.protocols.gomoku import GomokuFactory
    from hub.protocols.splendor import SplendorFactory
    return {kind: factory(hub.lobby, hub.sessions, hub.clock)
            for kind, factory in (("gomoku", GomokuFactory),
                                  ("checkers", CheckersFactory),
                                  ("splendor", SplendorFactory))}


class AccountsWebMixin(support.SQLiteMixin):
    """
    C{setUpWeb} makes C{self.web} (a L{WebHub} with accounts),
    C{self.accounts}, C{self.auth}, C{self.clock} and C{self.names}.
    """

    registration = "open"
    #: Whether the web face has C{/ws} (browser play over the hub's
    #: three legacy factories).
    play = False

    @defer.inlineCallbacks
    def setUpWeb(self, registration=None):
        self.clock = Clock()
        self.clock.advance(1000000)
        self.accounts = support.openAccounts(self, now=self.clock.seconds)
        self.hub = Hub(reactor)
        self.names = NameService(
            self.accounts, self.hub.clock, self.hub.sessions,
            moderate=lambda names: Moderation(
                self.accounts, names, self.hub.lobby, self.hub.sessions))
        yield self.names.refresh()
        self.sessions = WebSessions(self.accounts.database, self.clock)
        self.auth = WebAuth(self.accounts, self.sessions,
                            self.names.moderation, self.clock,
                            registration or self.registration, self.names,
                            displayNames(self.names, self.hub.clock))
        factories = None
        if self.play:
            factories = playFactories(self.hub)
        self.web = WebHub(self, hub=self.hub, auth=self.auth,
                          factories=factories, director=self.director(),
                          door=self.door())

    def door(self):
        """
        The door of the web face (L{hub.web.door.WebDoor}), or None for
        the default: no trusted proxy, C{self.names}' bans.
        """
        return None

    def director(self):
        """
        The tournament director of the web face (its C{/tournaments} and
        C{/admin/tournaments}), or None.
        """
        return None

    def metricsText(self):
        """
        The text of the hub's metrics with the logins' collector.
        """
        from prometheus_client import generate_latest
        registry = metricsRegistry(self.hub.lobby, self.hub.sessions,
                                   [self.auth.collector(),
                                    self.names.collector()])
        return generate_latest(registry).decode("utf-8")

    @defer.inlineCallbacks
    def addAccount(self, name, role="player"):
        key = yield self.accounts.add(name, PASSWORD, role)
        return key
