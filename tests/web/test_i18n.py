"""
Tests for L{hub.web.i18n}: the language of a page, and the gettext
catalogs of the pages' scripts.
"""

import os

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.test.requesthelper import DummyRequest

from hub.web import i18n, pages

STATIC = os.path.join(os.path.dirname(pages.__file__), "static")


def request(acceptLanguage=None, lang=None):
    r = DummyRequest([b""])
    r.postpath = []
    if acceptLanguage is not None:
        r.requestHeaders.setRawHeaders(b"accept-language",
                                       [acceptLanguage.encode("latin-1")])
    if lang is not None:
        r.args[b"lang"] = [lang.encode()]
    return r


def scriptMessages():
    """
    The texts the scripts pass to C{t()}, as C{pybabel extract} finds
    them.
    """
    return {message for _, _, message, _, _ in extract_from_dir(
        STATIC, method_map=[("**.js", "javascript")],
        keywords={"t": None})}


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
    The catalogs hold every string of the scripts.
    """

    def test_templateUpToDate(self):
        """
        C{hub/locale/web.pot} lists exactly what the scripts translate
        (run the command in C{hub/locale/babel.cfg} after changing one).
        """
        with open(os.path.join(i18n.LOCALE, "web.pot"), "rb") as f:
            template = {m.id for m in read_po(f) if m.id}
        self.assertEqual(template, scriptMessages())

    def test_chineseComplete(self):
        """
        Every string of the scripts has its Chinese translation, with the
        same placeholders.
        """
        chinese = i18n.catalog("zh")
        for message in scriptMessages():
            self.assertIn(message, chinese)
            for placeholder in ("{0}", "{1}"):
                self.assertEqual(placeholder in message,
                                 placeholder in chinese[message], message)

    def test_englishIsTheSource(self):
        """
        The English catalog translates nothing (the keys are English).
        """
        self.assertEqual(i18n.catalog("en"), {})


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
                         [b"Accept-Language"])

    def test_english(self):
        r = request("en-GB")
        pages.PlayPage().render_GET(r)
        body = b"".join(r.written).decode("utf-8")
        self.assertIn('data-lang="en"', body)
        self.assertIn('data-catalog="{}"', body)
