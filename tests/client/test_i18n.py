"""
Tests for L{hub.client.i18n}: the desktop client's strings in the same
gettext catalogs as the web face (the C{client} domain), and its
language from C{--lang} or the system locale.
"""

import os
import re

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from twisted.trial.unittest import SynchronousTestCase

import client_pyglet
from client_pyglet.__main__ import chooseLanguage, makeParser
from hub import client as hubclient
from hub.client import i18n
from hub.web import i18n as webi18n

#: The folders whose strings are the client's.
SOURCES = [os.path.dirname(client_pyglet.__file__),
           os.path.dirname(hubclient.__file__)]
PLACEHOLDER = re.compile(r"%[sdr]")


def clientMessages():
    """
    The texts the client marks with C{_()} and C{N_()}, as C{pybabel
    extract} finds them.
    """
    return {message for source in SOURCES
            for _, _, message, _, _ in extract_from_dir(
                source, method_map=[("**.py", "python")],
                keywords={"_": None, "N_": None})}


class CatalogTests(SynchronousTestCase):
    """
    The client's catalogs sit beside the web face's and hold every
    string of its screens, in Chinese.
    """

    def test_sameFolder(self):
        """
        The client reads the web face's catalog folder and languages.
        """
        self.assertEqual(i18n.LOCALE, webi18n.LOCALE)
        self.assertEqual(i18n.LANGUAGES, webi18n.LANGUAGES)
        for language in i18n.LANGUAGES:
            self.assertTrue(os.path.exists(os.path.join(
                i18n.LOCALE, language, "LC_MESSAGES", "client.po")))

    def test_templateUpToDate(self):
        """
        C{hub/locale/client.pot} lists exactly what the client marks (run
        the command in L{hub.client.i18n}'s docstring after changing one).
        """
        with open(os.path.join(i18n.LOCALE, "client.pot"), "rb") as f:
            template = {m.id for m in read_po(f) if m.id}
        self.assertEqual(template, clientMessages())

    def test_chineseComplete(self):
        """
        Every string of the client has its Chinese translation, with the
        same placeholders in the same order.
        """
        chinese = i18n.catalog("zh")
        messages = clientMessages()
        self.assertGreater(len(messages), 200)
        for message in messages:
            self.assertIn(message, chinese)
            self.assertEqual(PLACEHOLDER.findall(message),
                             PLACEHOLDER.findall(chinese[message]), message)

    def test_englishIsTheSource(self):
        """
        The English catalog translates nothing (the keys are English).
        """
        self.assertEqual(i18n.catalog("en"), {})

    def test_gameNames(self):
        """
        The games are named in Chinese as the seeds name them.
        """
        chinese = i18n.catalog("zh")
        self.assertEqual(chinese["Chinese checkers"], "跳棋")
        self.assertEqual(chinese["Splendor"], "璀璨宝石")
        self.assertEqual(chinese["Gomoku"], "五子棋")


class LanguageTests(SynchronousTestCase):
    """
    Which language the client speaks.
    """

    def setUp(self):
        self.addCleanup(i18n.setLanguage, i18n.language())

    def test_translate(self):
        i18n.setLanguage("zh")
        self.assertEqual(i18n._("Play offline"), "离线对局")
        self.assertEqual(i18n._("not in any catalog"), "not in any catalog")
        i18n.setLanguage("en")
        self.assertEqual(i18n._("Play offline"), "Play offline")

    def test_unknownLanguage(self):
        self.assertRaises(ValueError, i18n.setLanguage, "fr")

    def test_systemLanguage(self):
        """
        The system locale decides as gettext looks: C{LANGUAGE}'s list,
        then the first set of C{LC_ALL}, C{LC_MESSAGES}, C{LANG}; a
        language without a catalog (or C{C}) is English.
        """
        for environ, language in [
                ({"LANG": "zh_CN.UTF-8"}, "zh"),
                ({"LANG": "zh_TW.UTF-8"}, "zh"),
                ({"LANG": "en_GB.UTF-8"}, "en"),
                ({"LANG": "fr_FR.UTF-8"}, "en"),
                ({"LANG": "C.UTF-8"}, "en"),
                ({}, "en"),
                ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
                ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
                ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US"}, "zh"),
                ({"LANGUAGE": "fr:zh_CN", "LANG": "en_US"}, "zh"),
                ({"LANG": "zh_CN.GB18030@stroke"}, "zh"),
                ({"LANG": "\x00garbage"}, "en")]:
            self.assertEqual(i18n.systemLanguage(environ), language,
                             environ)

    def test_commandLine(self):
        """
        C{--lang} wins over the locale; without it the locale decides.
        """
        args = makeParser().parse_args(["--lang", "en"])
        self.assertEqual(chooseLanguage(args.lang, {"LANG": "zh_CN"}),
                         "en")
        args = makeParser().parse_args([])
        self.assertIsNone(args.lang)
        self.assertEqual(chooseLanguage(args.lang, {"LANG": "zh_CN"}),
                         "zh")
        self.assertEqual(chooseLanguage(args.lang, {"LANG": "en_US"}),
                         "en")
        self.assertRaises(SystemExit, makeParser().parse_args,
                          ["--lang", "fr"])
