"""
Tests for L{hub.web.i18n}: the language of a page, and the gettext
catalogs of the pages and their scripts.
"""

import glob
import os
import re

from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.http import Request
from twisted.web.test.requesthelper import DummyRequest

from hub.web import i18n, pages

try:
    from babel.messages.frontend import parse_mapping_cfg
except ImportError:  # Babel < 2.14
    from babel.messages.frontend import parse_mapping as parse_mapping_cfg

WEB = os.path.dirname(pages.__file__)
STATIC = os.path.join(WEB, "static")
#: C{pybabel extract}'s keywords for the catalogs (C{-k t}, and the
#: default ones: C{_}, C{N_}...).
KEYWORDS = dict(DEFAULT_KEYWORDS, t=None)


class CookieRequest(DummyRequest):
    """
    A L{DummyRequest} with the cookies of a real one: those it was sent
    (C{received_cookies}) and those it sets (C{cookies}, header lines).
    """

    def __init__(self, *args, **kwargs):
        DummyRequest.__init__(self, *args, **kwargs)
        self.received_cookies = {}
        self.cookies = []

    getCookie = Request.getCookie
    addCookie = Request.addCookie


def request(acceptLanguage=None, lang=None, cookie=None):
    r = CookieRequest([b""])
    r.postpath = []
    if cookie is not None:
        r.received_cookies[b"lang"] = cookie.encode()
    if acceptLanguage is not None:
        r.requestHeaders.setRawHeaders(b"accept-language",
                                       [acceptLanguage.encode("latin-1")])
    if lang is not None:
        r.args[b"lang"] = [lang.encode()]
    return r


def extracted():
    """
    The texts of the pages and of the stores' words they say
    (C{_("...")}, C{N_("...")} in the Python of L{i18n.SOURCES}) and of
    the pages' scripts (C{t("...")}), as C{pybabel extract} finds them
    with C{hub/locale/babel.cfg}.
    """
    with open(os.path.join(i18n.LOCALE, "babel.cfg")) as f:
        methods, options = parse_mapping_cfg(f)
    top = os.path.dirname(WEB)
    return {message for source in i18n.SOURCES
            for _, _, message, _, _ in extract_from_dir(
                os.path.join(top, source), method_map=methods,
                options_map=options, keywords=KEYWORDS)}


def scriptMessages():
    """
    The texts the scripts pass to C{t()}, as C{pybabel extract} finds
    them.
    """
    return {message for _, _, message, _, _ in extract_from_dir(
        STATIC, method_map=[("**.js", "javascript")],
        keywords={"t": None})}


def templates():
    """
    The message ids of each catalog template (C{hub/locale/*.pot}), by
    domain.
    """
    found = {}
    for name in os.listdir(i18n.LOCALE):
        if name.endswith(".pot"):
            with open(os.path.join(i18n.LOCALE, name), "rb") as f:
                found[name[:-4]] = {m.id for m in read_po(f) if m.id}
    return found


def poFiles(language):
    """
    The catalogs of C{language}: C{{domain: [message, ...]}} (the header
    left out).
    """
    found = {}
    for path in glob.glob(os.path.join(i18n.LOCALE, language,
                                       "LC_MESSAGES", "*.po")):
        with open(path, "rb") as f:
            found[os.path.basename(path)[:-3]] = [
                m for m in read_po(f, locale=language) if m.id]
    return found


class LanguageTests(SynchronousTestCase):
    """
    L{i18n.chooseLanguage}: C{?lang=}, then Accept-Language, then
    English.
    """

    def test_acceptLanguage(self):
        for header, language in [
                ("en-US,en;q=0.9", "en"), ("zh-CN,zh;q=0.9", "zh"),
                ("zh-TW", "zh"), ("zh-Hans-CN", "zh"), ("fr, zh;q=0.5", "zh"),
                ("fr, *;q=0.1", "en"), ("zh;q=0, en", "en"),
                ("zh-Hant;q=0.8, en;q=0.9", "en"), ("xx-yy", "en"),
                ("", "en"), ("\xff\x00,;;q=", "en"), ("de;q=abc,zh", "zh")]:
            self.assertEqual(i18n.chooseLanguage(request(header)), language,
                             header)
        self.assertEqual(i18n.chooseLanguage(request()), "en")

    def test_argument(self):
        """
        C{?lang=} wins over Accept-Language (the page's switch); an
        unknown one is ignored.
        """
        self.assertEqual(i18n.chooseLanguage(request("en", "zh")), "zh")
        self.assertEqual(i18n.chooseLanguage(request("zh", "en")), "en")
        self.assertEqual(i18n.chooseLanguage(request("zh", "xx")), "zh")


class CatalogTests(SynchronousTestCase):
    """
    The catalogs hold every string of the pages and their scripts, in
    English and in Chinese.
    """

    def test_templateUpToDate(self):
        """
        C{hub/locale/web.pot} lists exactly what the pages' Python and
        scripts translate (run the commands in C{hub/locale/babel.cfg}
        after changing one).
        """
        with open(os.path.join(i18n.LOCALE, "web.pot"), "rb") as f:
            template = {m.id for m in read_po(f) if m.id}
        self.assertEqual(template, extracted())

    def test_extractsPythonAndScripts(self):
        """
        The extraction finds the scripts' texts and the pages' Python
        ones (the header's words).
        """
        found = extracted()
        self.assertLessEqual(scriptMessages(), found)
        for text in ("play", "leaderboard: {0}", "gomoku", "checkers",
                     "splendor", "tournaments", "account", "{0} cards",
                     "Your turn."):
            self.assertIn(text, found)

    def test_sameDomains(self):
        """
        Both languages have the same catalogs, one for each template: the
        pages' (C{web}) and the desktop client's (C{client}).
        """
        self.assertEqual(sorted(templates()), ["client", "web"])
        self.assertEqual(sorted(poFiles("en")), sorted(templates()))
        self.assertEqual(sorted(poFiles("zh")), sorted(templates()))

    def test_catalogsComplete(self):
        """
        Every catalog holds exactly its template's texts, in both
        languages: each has its Chinese translation, with the same
        placeholders; nothing is fuzzy (a fuzzy translation is not
        shown).
        """
        english, chinese = poFiles("en"), poFiles("zh")
        for domain, template in templates().items():
            englishIds = {m.id for m in english[domain]}
            chineseIds = {m.id for m in chinese[domain]}
            self.assertEqual(englishIds, chineseIds, domain)
            self.assertEqual(englishIds, template, domain)
            for message in english[domain] + chinese[domain]:
                self.assertFalse(message.fuzzy, message.id)
                self.assertIsInstance(message.id, str, "no plural forms")
            for message in chinese[domain]:
                self.assertTrue(message.string.strip(), message.id)
                for n in range(4):
                    placeholder = "{%d}" % (n,)
                    self.assertEqual(placeholder in message.id,
                                     placeholder in message.string,
                                     message.id)

    def test_chineseComplete(self):
        """
        Every string of the pages and scripts has its Chinese translation.
        """
        chinese = i18n.catalog("zh")
        for message in extracted():
            self.assertIn(message, chinese)

    def test_gameNames(self):
        """
        The games' Chinese names are the seeds': 五子棋, 跳棋, 璀璨宝石.
        """
        chinese = i18n.catalog("zh")
        self.assertEqual([chinese[kind] for kind in pages.GAME_KINDS],
                         ["五子棋", "跳棋", "璀璨宝石"])

    def test_englishIsTheSource(self):
        """
        The English catalog translates nothing (the keys are English).
        """
        self.assertEqual(i18n.catalog("en"), {})

    def test_translator(self):
        """
        L{i18n.translator} translates with the catalog, and gives back
        a text it has no translation for.
        """
        self.assertEqual(i18n.translator("zh")("Play"), "对弈")
        self.assertEqual(i18n.translator("en")("Play"), "Play")
        self.assertEqual(i18n.translator("zh")("no such text"),
                         "no such text")


class PlayPageTests(SynchronousTestCase):
    """
    C{/play} carries its language and catalog.
    """

    def test_chinese(self):
        r = request("zh-CN,zh;q=0.9,en;q=0.5")
        pages.PlayPage().render_GET(r)
        body = b"".join(r.written).decode("utf-8")
        self.assertIn('data-lang="zh"', body)
        self.assertIn("对弈", body)
        self.assertEqual(r.responseHeaders.getRawHeaders(b"vary"),
                         [b"Accept-Language, Cookie"])

    def test_english(self):
        r = request("en-GB")
        pages.PlayPage().render_GET(r)
        body = b"".join(r.written).decode("utf-8")
        self.assertIn('data-lang="en"', body)
        self.assertIn('data-catalog="{}"', body)

    def test_chineseHeader(self):
        """
        The Chinese page's header, title and C{lang} are Chinese: the
        games by the seeds' names.
        """
        r = request("zh-CN")
        pages.PlayPage().render_GET(r)
        body = b"".join(r.written).decode("utf-8")
        self.assertIn('<html lang="zh">', body)
        self.assertIn("<title>对弈 - gamehub</title>", body)
        for text in (">对弈</a>", ">排行榜：五子棋</a>", ">排行榜：跳棋</a>",
                     ">排行榜：璀璨宝石</a>", "<h1>对弈</h1>"):
            self.assertIn(text, body)
        nav = body[body.index("<nav>"):body.index("</nav>")]
        self.assertNotIn("leaderboard:", nav)

    def test_englishHeader(self):
        r = request("en")
        pages.PlayPage().render_GET(r)
        body = b"".join(r.written).decode("utf-8")
        self.assertIn('<html lang="en">', body)
        self.assertIn(">leaderboard: gomoku</a>", body)

    def test_accountLinks(self):
        """
        The account links are translated; a player's name in one is not.
        """
        link = pages.tags.a("account", href="/account")
        self.assertEqual(pages.translatedLink(
            link, i18n.translator("zh")).children, ["账户"])
        self.assertEqual(link.children, ["account"])
        named = pages.tags.a(pages.player("account"), href="/account")
        self.assertIs(pages.translatedLink(named, i18n.translator("zh")),
                      named)


class ErrorTextTests(SynchronousTestCase):
    """
    The play page says a sentence for each error code of C{/ws}
    (C{static/errors.js}), not the code.
    """

    def test_everyCode(self):
        """
        Every error code the hub's browser play sends (the constants of
        L{hub.web.play}, and C{internal}) has its sentence, and each
        sentence is a code's.
        """
        from hub.web import play
        codes = {value for name, value in vars(play).items()
                 if name.isupper() and isinstance(value, str)
                 and name != "WEB_KIND" and value == value.lower()
                 and value.replace("-", "").isalpha()}
        codes.add("internal")
        with open(os.path.join(STATIC, "errors.js"), encoding="utf-8") as f:
            texts = set(re.findall(r'^  "([a-z-]+)": \(\) => t\(',
                                   f.read(), re.M))
        self.assertEqual(texts, codes)

    def test_documented(self):
        """
        The codes with a sentence are all in C{docs/protocols/web.md}'s
        list of error codes.
        """
        with open(os.path.join(STATIC, "errors.js"), encoding="utf-8") as f:
            texts = set(re.findall(r'^  "([a-z-]+)": ', f.read(), re.M))
        docs = os.path.join(os.path.dirname(os.path.dirname(
            os.path.dirname(os.path.abspath(__file__)))), "docs",
            "protocols", "web.md")
        with open(docs, encoding="utf-8") as f:
            section = f.read().split("### Error codes", 1)[1]
        section = section.split("\n#", 1)[0]
        self.assertLessEqual(texts, set(re.findall(r"`([a-z-]+)`", section)))
