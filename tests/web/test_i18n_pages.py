"""
Every page of the web face in both languages (issue 34): each route,
asked for in Chinese, shows no English text of the catalogs (every
message of C{hub/locale/zh/LC_MESSAGES/web.po} whose Chinese differs is
looked for in the page's text); C{<html lang>} matches the page's
language; the switch's choice is remembered in a cookie.  Real SQLite,
a real HTTP port.
"""

import re
from html.parser import HTMLParser

from twisted.internet import defer
from twisted.trial.unittest import TestCase

from hub.records import query
from hub.tournaments import store
from hub.tournaments.director import Director
from hub.web import i18n

from tests.records import support
from tests.web.accountsupport import AccountsWebMixin, Browser
from tests.web.support import WebHub

ZH = {b"accept-language": b"zh-CN,zh;q=0.9"}
EN = {b"accept-language": b"en-US,en;q=0.9"}
#: The attributes whose text a person reads.
READ_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")


class PageText(HTMLParser):
    """
    The text a person reads on a page: its text nodes (the title's
    included) and its read attributes, each a line; a player's text
    (C{<bdi>}), code (C{<code>}) and scripts left out.
    """

    SKIPPED = ("bdi", "code", "script", "style")

    def __init__(self):
        HTMLParser.__init__(self, convert_charrefs=True)
        self.lines = []
        self.skipping = []
        self.lang = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "html":
            self.lang = attributes.get("lang")
        for name in READ_ATTRIBUTES:
            if attributes.get(name):
                self.lines.append(attributes[name])
        if tag == "button" and attributes.get("value"):
            self.lines.append(attributes["value"])
        if tag in self.SKIPPED:
            self.skipping.append(tag)

    def handle_endtag(self, tag):
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data):
        if not self.skipping and data.strip():
            self.lines.append(data)


def readText(page):
    """
    C{(lang, lines)} of C{page} (its C{<html lang>} and L{PageText}).
    """
    parser = PageText()
    parser.feed(page)
    return parser.lang, parser.lines


def _pattern(message):
    # A catalog message as a pattern over a page's text: its words whole
    # (not inside a longer word), each placeholder some text.
    parts = re.split(r"\{\d+\}", message.strip())
    body = r".+?".join(re.escape(part) for part in parts)
    return re.compile(r"(?<![A-Za-z])" + body + r"(?![A-Za-z])")


def englishMessages():
    """
    The catalogs' messages whose Chinese differs from their English and
    that have English words (at least two letters), as patterns.
    """
    found = {}
    for message, chinese in i18n.catalog("zh").items():
        if chinese != message and re.search(r"[A-Za-z]{2}", message):
            found[message] = _pattern(message)
    return found


class WalkMixin:
    """
    Walking routes in both languages.
    """

    def assertChinese(self, browser, path, fields=None):
        """
        C{path} asked for in Chinese (C{fields}: POSTed as a form) is a
        page in Chinese with none of the catalogs' English left.
        """
        if fields is None:
            d = browser.request(b"GET", path, headers=ZH)
        else:
            d = browser.request(b"POST", path, fields, headers=ZH)

        def check(answer):
            code, headers, page = answer
            lang, lines = readText(page)
            self.assertEqual(lang, "zh", (path, code))
            text = "\n".join(lines)
            left = sorted(message for message, pattern in
                          englishMessages().items() if pattern.search(text))
            self.assertEqual(left, [], (path, code, text))
            return answer
        return d.addCallback(check)

    @defer.inlineCallbacks
    def assertEnglish(self, browser, path):
        """
        C{path} asked for in English is an English page.
        """
        code, headers, page = yield browser.request(b"GET", path,
                                                    headers=EN)
        lang, lines = readText(page)
        self.assertEqual(lang, "en", (path, code))

    @defer.inlineCallbacks
    def walk(self, browser, paths):
        for path in paths:
            yield self.assertChinese(browser, path)
            yield self.assertEnglish(browser, path)


class RecordsPagesTests(support.SQLiteMixin, WalkMixin, TestCase):
    """
    The pages of a hub with records and no accounts: the lobby, the play
    page, the leaderboards, the player pages, a game's page, the 404s.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.database = support.openDatabase(self, self.databaseURL())
        self.ids = yield support.recordGuestGames(self.database)
        self.web = WebHub(self, query.Records(self.database,
                                              leaderboardMinGames=1,
                                              leaderboardGuests=True))

    def test_everyRoute(self):
        """
        Every page of a hub with records, in Chinese and in English.
        """
        return self.walk(Browser(self.web), [
            "/", "/play", "/leaderboard/gomoku", "/players/gomoku/ann",
            "/players/gomoku/bob", "/games/%s" % (self.ids[0],),
            "/games/999999", "/no/such/page", "/tournaments"])

    @defer.inlineCallbacks
    def test_switchRemembered(self):
        """
        The header's switch links to the page in the other language
        (C{?lang=}); following it sets the C{lang} cookie, and the next
        page is in that language whatever C{Accept-Language} says.
        """
        browser = Browser(self.web)
        code, _, page = yield browser.request(b"GET", "/leaderboard/gomoku",
                                              headers=EN)
        self.assertIn('<html lang="en">', page)
        self.assertIn('href="?lang=zh"', page)
        self.assertNotIn("lang", browser.cookies)
        code, _, page = yield browser.request(
            b"GET", "/leaderboard/gomoku?lang=zh", headers=EN)
        self.assertIn('<html lang="zh">', page)
        self.assertEqual(browser.cookies.get("lang"), "zh")
        [cookie] = [c for c in browser.setCookies if c.startswith("lang=")]
        self.assertIn("Path=/", cookie)
        code, headers, page = yield browser.request(b"GET", "/", headers=EN)
        self.assertIn('<html lang="zh">', page)
        self.assertIn('href="?lang=en"', page)
        self.assertEqual(headers.getRawHeaders(b"vary"),
                         [b"Accept-Language, Cookie"])
        code, _, page = yield browser.request(b"GET", "/play?lang=en",
                                              headers=ZH)
        self.assertIn('<html lang="en">', page)
        self.assertEqual(browser.cookies.get("lang"), "en")

    @defer.inlineCallbacks
    def test_switchKeepsArguments(self):
        """
        The switch keeps a page's other arguments (C{?kind=...}).
        """
        code, _, page = yield Browser(self.web).request(
            b"GET", "/leaderboard/gomoku?kind=checkers", headers=EN)
        self.assertIn('href="?kind=checkers&amp;lang=zh"', page)


class AccountPagesTests(AccountsWebMixin, WalkMixin, TestCase):
    """
    The pages of a hub with accounts and tournaments: register, log in,
    the account, moderation, the events.
    """

    def director(self):
        return Director(self.accounts.database, self.hub.lobby,
                        self.hub.clock, {}.__getitem__)

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("admin", "admin")
        for name in ("ann", "bob"):
            yield self.addAccount(name)
        database = self.accounts.database
        eventId = yield database.runInteraction(
            store.createEvent, "cup", "gomoku", "swiss", 3, None, 2, None,
            0.0, write=True)
        for name in ("ann", "bob"):
            yield database.runInteraction(store.enter, eventId, name, 0.0,
                                          write=True)
        # An engine whose brain answered ABOUT (its line on the page).
        from hub.tournaments import catalog
        yield database.runInteraction(catalog.register, "robot",
                                      ["python", "-m", "hub.bots"], 0.0,
                                      write=True)
        yield database.runInteraction(store.enter, eventId, "robot", 0.0,
                                      "robot", write=True)
        yield database.runInteraction(
            store.setAbout, eventId, "robot",
            {"name": "Robo", "version": "1.0", "author": "Ann",
             "country": "CZ"}, write=True)
        self.eventId = eventId

    @defer.inlineCallbacks
    def test_everyRoute(self):
        """
        Every page of the accounts and events, logged out and logged in
        as an admin, in Chinese and in English.
        """
        browser = Browser(self.web)
        yield self.walk(browser, [
            "/register", "/login", "/logout", "/tournaments",
            "/tournaments/%d" % (self.eventId,)])
        code, _, _ = yield browser.login("admin")
        self.assertEqual(code, 303)
        yield self.walk(browser, [
            "/account", "/admin", "/admin/audit", "/admin/tournaments",
            "/tournaments", "/tournaments/%d" % (self.eventId,), "/",
            "/play"])

    @defer.inlineCallbacks
    def test_formsRefusals(self):
        """
        A refused registration and login answer in Chinese.
        """
        browser = Browser(self.web)
        code, _, page = yield browser.request(b"GET", "/register",
                                              headers=ZH)
        from tests.web.accountsupport import csrfOf
        for fields in ({"name": "张三", "password": "pw", "again": "pw"},
                       {"name": "toolongname", "password": "pw",
                        "again": "pw"},
                       {"name": "ann", "password": "pw", "again": "pw"},
                       {"name": "carl", "password": "pw", "again": "px"}):
            yield self.assertChinese(browser, "/register",
                                     dict(fields, csrf=csrfOf(page)))
        code, _, page = yield browser.request(b"GET", "/login", headers=ZH)
        yield self.assertChinese(browser, "/login", {
            "name": "ann", "password": "wrong", "csrf": csrfOf(page)})

    @defer.inlineCallbacks
    def test_aboutLine(self):
        """
        An engine's ABOUT on the event's page reads in the page's
        language, each of its values isolated.
        """
        browser = Browser(self.web)
        path = "/tournaments/%d" % (self.eventId,)
        code, _, page = yield browser.request(b"GET", path, headers=EN)
        about = ('<span class="about"> <bdi>Robo</bdi> <bdi>1.0</bdi>, by '
                 '<bdi>Ann</bdi> (<bdi>CZ</bdi>)</span>')
        self.assertIn(about, page)
        code, _, page = yield browser.request(b"GET", path, headers=ZH)
        self.assertIn('<span class="about"> <bdi>Robo</bdi> <bdi>1.0</bdi>'
                      '\uff0c\u4f5c\u8005 <bdi>Ann</bdi>\uff08<bdi>CZ</bdi>'
                      '\uff09</span>', page)

    @defer.inlineCallbacks
    def test_accountRefusals(self):
        """
        The refusals of the accounts (L{hub.accounts.store.AccountError})
        and of the actions' fields on C{/admin}, and an event's closed
        entry, are said in the page's language.
        """
        from tests.web.accountsupport import csrfOf
        browser = Browser(self.web)
        yield browser.login("admin")
        code, _, page = yield browser.request(b"GET", "/admin", headers=ZH)
        csrf = csrfOf(page)
        for path, fields, said in [
                ("/admin/unban", {"target": "192.0.2.1"},
                 "<bdi>192.0.2.1/32</bdi> "
                 "\u6ca1\u6709\u88ab\u5c01\u7981\u3002"),
                ("/admin/ban", {"target": "no such!", "for": "1h",
                                "reason": "x"},
                 "<bdi>'no such!'</bdi> \u65e2\u4e0d\u662f\u8d26\u6237\u540d"),
                ("/admin/ban", {"target": "bob", "for": "soon",
                                "reason": "x"},
                 "\u65f6\u957f\u662f\u4e00\u4e2a\u6570\u5b57"),
                ("/admin/role", {"name": "admin", "role": "player"},
                 "<bdi>admin</bdi> \u662f\u6700\u540e\u4e00\u4f4d\u7ba1\u7406"
                 "\u5458\u3002"),
                ("/admin/role", {"name": "nobody", "role": "player"},
                 "\u6ca1\u6709\u8d26\u6237 <bdi>'nobody'</bdi>\u3002"),
                ("/admin/event-enter", {"event": str(self.eventId)},
                 "\u9700\u8981 <bdi>name</bdi>\u3002")]:
            code, _, page = yield self.assertChinese(
                browser, path, dict(fields, csrf=csrf))
            shown = re.findall(r'class="message error">(.*?)</p>', page)
            self.assertIn(code, (400, 403), (path, shown))
            self.assertIn(said, page, (path, shown))
        code, _, page = yield browser.request(
            b"POST", "/admin/unban", {"target": "192.0.2.1", "csrf": csrf},
            headers=EN)
        self.assertIn("No ban of <bdi>192.0.2.1/32</bdi>.", page)
        yield self.accounts.database.runInteraction(
            store.requestState, self.eventId, "start", 0.0, write=True)
        path = "/tournaments/%d" % (self.eventId,)
        yield browser.login("ann")
        code, _, page = yield browser.request(b"GET", path, headers=ZH)
        code, _, page = yield self.assertChinese(
            browser, path + "/enter", {"csrf": csrfOf(page)})
        self.assertEqual(code, 400)
        self.assertIn("\u62a5\u540d\u5df2\u622a\u6b62", page)

    @defer.inlineCallbacks
    def test_tournamentRefusals(self):
        """
        The refusals of the tournaments' store
        (L{hub.tournaments.store.TournamentError}) on C{/admin/tournaments}
        actions and on an event's withdraw are said in the page's
        language, their names in a C{<bdi>}; in English, as C{str} says.
        """
        from tests.web.accountsupport import csrfOf
        browser = Browser(self.web)
        yield browser.login("admin")
        code, _, page = yield browser.request(b"GET", "/admin", headers=ZH)
        csrf = csrfOf(page)
        event = str(self.eventId)
        for path, fields, said in [
                ("/admin/event-engine", {"event": event, "name": "nope"},
                 "\u6ca1\u6709\u5df2\u6ce8\u518c\u7684\u5f15\u64ce "
                 "<bdi>nope</bdi>"),
                ("/admin/event-withdraw", {"event": event, "name": "carl"},
                 "<bdi>carl</bdi> \u4e0d\u662f\u6bd4\u8d5b <bdi>%s</bdi> "
                 "\u7684\u53c2\u8d5b\u8005\u3002" % (event,)),
                ("/admin/event-pause", {"event": event},
                 "\u7684\u72b6\u6001\u662f\u201c\u672a\u5f00\u59cb"
                 "\u201d\uff0c\u4e0d\u662f\u201c\u8fdb\u884c\u4e2d"
                 "\u201d\u3002"),
                ("/admin/event-enter", {"event": "999", "name": "ann"},
                 "\u6ca1\u6709\u6bd4\u8d5b <bdi>999</bdi>\u3002")]:
            code, _, page = yield self.assertChinese(
                browser, path, dict(fields, csrf=csrf))
            self.assertEqual(code, 400, path)
            self.assertIn(said, page, path)
        code, _, page = yield browser.request(
            b"POST", "/admin/event-withdraw",
            {"event": event, "name": "carl", "csrf": csrf}, headers=EN)
        self.assertIn("<bdi>carl</bdi> is not an entrant of event <bdi>%s"
                      "</bdi>." % (event,), page)
        yield self.addAccount("carl")
        yield browser.login("carl")
        path = "/tournaments/%d" % (self.eventId,)
        code, _, page = yield browser.request(b"GET", path, headers=ZH)
        code, _, page = yield self.assertChinese(
            browser, path + "/withdraw", {"csrf": csrfOf(page)})
        self.assertEqual(code, 400)
        self.assertIn("<bdi>carl</bdi> \u4e0d\u662f\u6bd4\u8d5b", page)

    @defer.inlineCallbacks
    def test_nameWhyAscii(self):
        """
        The register form says why a name is ASCII (the legacy clients'
        protocols), and so does its refusal of 张三, in both languages.
        """
        browser = Browser(self.web)
        code, _, page = yield browser.request(b"GET", "/register",
                                              headers=EN)
        self.assertIn("legacy game clients&#x27; protocols", page.replace(
            "'", "&#x27;"))
        from tests.web.accountsupport import csrfOf
        code, _, page = yield browser.request(
            b"POST", "/register", {"name": "张三", "password": "pw",
                                   "again": "pw", "csrf": csrfOf(page)},
            headers=EN)
        self.assertEqual(code, 400)
        self.assertIn("so a name in Chinese cannot be one", page)
        code, _, page = yield browser.request(b"GET", "/register",
                                              headers=ZH)
        self.assertIn("旧版游戏客户端的协议", page)
