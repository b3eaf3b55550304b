"""
Frozen trees (L{hub.web.frozen}) and the pages made from them: every
page's shell (L{hub.web.pages.frozenShell}) and the account page's
content (L{hub.web.accountpages.accountTree}) give byte for byte what
flattening their trees whole gives, in each language, and no visitor's
values are kept from one page to the next.
"""

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.trial.unittest import SynchronousTestCase, TestCase
from twisted.web import server
from twisted.web.error import FlattenerError
from twisted.web.template import Comment, Tag, flattenString, slot, tags
from twisted.web.test.requesthelper import DummyChannel

from hub.accounts.websessions import Visitor
from hub.web import accountpages, frozen, i18n, pages

from tests.web.accountsupport import AccountsWebMixin, Browser, csrfOf

#: Texts that need escaping, in content and in attributes.
HOSTILE = "<b>&amp;\"'</b> <!--frozen slot x--> \u202e"


def now(d):
    """
    The result of the fired Deferred C{d}.
    """
    results = []
    d.addBoth(results.append)
    assert results, "not fired"
    if hasattr(results[0], "raiseException"):
        results[0].raiseException()
    return results[0]


def whole(tree, **values):
    """
    C{tree} flattened with its slots filled the usual way (C{fillSlots}).
    """
    return now(flattenString(None, Tag("")(tree).fillSlots(**values)))


class FrozenTests(SynchronousTestCase):
    """
    L{frozen.freeze} and L{frozen.flattened}.
    """

    tree = tags.div(
        tags.p("same for all & everyone", class_="a<b"),
        slot("one"), tags.ul(tags.li(slot("two")), tags.li(slot("one"))),
        tags.span(slot("three"), title="t\"itle"))

    def test_sameBytes(self):
        """
        A frozen tree, filled, is byte for byte the tree flattened with
        its slots filled: the values escaped as there, a value used twice
        written twice.
        """
        shape = frozen.freeze(self.tree, ("one", "two", "three"))
        for values in (
                dict(one="1", two=[], three=""),
                dict(one=HOSTILE, two=tags.a(HOSTILE, href=HOSTILE),
                     three=[HOSTILE, tags.b(HOSTILE)]),
                dict(one=tags.input(value=HOSTILE), two="\u674e\u96f7",
                     three=Comment("a comment"))):
            self.assertEqual(
                now(frozen.flattened(None, shape.filled(**values))),
                whole(self.tree, **values))

    def test_markNotForged(self):
        """
        A value that spells a slot's mark is escaped like any text: it
        is no slot.
        """
        shape = frozen.freeze(tags.p(slot("a"), slot("b")), ("a", "b"))
        out = now(frozen.flattened(None, shape.filled(
            a="<!--frozen slot b-->", b="B")))
        self.assertEqual(out, b"<p>&lt;!--frozen slot b--&gt;B</p>")

    def test_valueHoldsMark(self):
        """
        A value that holds a slot's mark (a comment of that text: no
        page's) fails, rather than be split wrongly.
        """
        shape = frozen.freeze(tags.p(slot("a"), slot("b")), ("a", "b"))
        d = frozen.flattened(None, shape.filled(
            a=Comment("frozen slot b"), b="B"))
        self.assertRaises(ValueError, now, d)

    def test_slotInAttribute(self):
        """
        A slot in an attribute's value takes a text, escaped as the
        flattener escapes one there (its C{"} too); the same slot may be
        in a tag's content as well; a text of the tree that spells a mark
        is no slot.
        """
        tree = tags.p(tags.a(slot("a"), href=slot("a"),
                             title=["<!--frozen slot a-->", slot("b")]),
                      "<!--frozen slot b-->")
        shape = frozen.freeze(tree, ("a", "b"))
        self.assertEqual(shape.slots, ("a", "b", "a"))
        self.assertEqual(shape.inAttributes, (True, True, False))
        for a, b in (("x", "y"), (HOSTILE, HOSTILE + "\u674e")):
            self.assertEqual(
                now(frozen.flattened(None, shape.filled(a=a, b=b))),
                whole(tree, a=a, b=b))
        self.assertRaises(ValueError, shape.filled, a=tags.b("x"), b="")
        self.assertRaises(ValueError, shape.filled, a="", b=["x"])

    def test_escapes(self):
        """
        L{frozen.contentText} and L{frozen.attributeText} escape a text as
        the flattener does in a tag's content and in an attribute's value.
        """
        for text in (HOSTILE, "", "a&b<c>d\"e'f", "\U0001f600\x00\n"):
            self.assertEqual(b"<p>" + frozen.contentText(text) + b"</p>",
                             whole(tags.p(text)))
            self.assertEqual(
                b'<p title="' + frozen.attributeText(text) + b'"></p>',
                whole(tags.p(title=text)))

    def test_slotsChecked(self):
        """
        A slot not named is a flattening error when frozen; the values
        given must be the slots, all of them, none other.
        """
        self.assertRaises(FlattenerError, frozen.freeze,
                          tags.p(slot("a"), slot("b")), ("a",))
        shape = frozen.freeze(tags.p(slot("a"), slot("b")), ("a", "b"))
        self.assertRaises(ValueError, shape.filled, a="")
        self.assertRaises(ValueError, shape.filled, a="", b="", c="")

    def test_waitingRefused(self):
        """
        A tree that waits (a Deferred in it) cannot be frozen.
        """
        self.assertRaises(ValueError, frozen.freeze,
                          tags.p(Deferred(), slot("a")), ("a",))

    def test_waitingValue(self):
        """
        A value may wait: the bytes come when it has come.
        """
        shape = frozen.freeze(tags.p(slot("a"), slot("b")), ("a", "b"))
        later = Deferred()
        d = frozen.flattened(None, shape.filled(a=later, b="B"))
        self.assertNoResult(d)
        later.callback(tags.i("A"))
        self.assertEqual(now(d), b"<p><i>A</i>B</p>")

    def test_failingValue(self):
        """
        A value that fails fails the page, with its own failure.
        """
        shape = frozen.freeze(tags.p(slot("a"), slot("b")), ("a", "b"))
        inner = frozen.freeze(tags.i(slot("c")), ("c",))
        failing = defer.fail(KeyError("k"))
        d = frozen.flattened(None, shape.filled(
            a=inner.filled(c=failing), b="B"))
        failure = self.failureResultOf(d)
        self.assertTrue(failure.check(FlattenerError, KeyError))
        self.failureResultOf(failing, KeyError)

    def test_nested(self):
        """
        A value that is a filled frozen tree is written in its place; one
        in a tree flattens as the tree with its slots filled.
        """
        outer = frozen.freeze(tags.div(slot("a"), slot("b")), ("a", "b"))
        inner = frozen.freeze(tags.p(slot("c"), "!"), ("c",))
        page = outer.filled(a=inner.filled(c=HOSTILE), b=HOSTILE)
        expected = whole(tags.div(tags.p(HOSTILE, "!"), HOSTILE))
        self.assertEqual(now(frozen.flattened(None, page)), expected)
        self.assertEqual(now(flattenString(None, page)), expected)
        self.assertEqual(
            now(flattenString(None, tags.div(inner.filled(c="x")))),
            b"<div><p>x!</p></div>")


def rendered(render, language, args=None):
    """
    The status, headers and body of a page rendered by C{render} (a
    function of a request) for a request in C{language}.
    """
    channel = DummyChannel()
    request = server.Request(channel)
    request.method = b"GET"
    request.uri = request.path = b"/somewhere"
    request.clientproto = b"HTTP/1.1"
    request.args = args or {}
    request.prepath, request.postpath = [b"somewhere"], []
    request.requestHeaders.setRawHeaders(b"accept-language", [language])
    written = []
    write = request.write
    request.write = lambda data: (written.append(data), write(data))
    render(request)
    assert request.finished
    return request.code, request.responseHeaders, b"".join(written)


class ShellTests(SynchronousTestCase):
    """
    Every page's shell, frozen once per language (L{pages.frozenShell}):
    L{pages.render} writes what flattening the whole page gave before
    (L{pages.Page}), in English and in Chinese (with its catalog in the
    body's C{data-catalog}, escaped once).
    """

    def test_sameAsWhole(self):
        """
        L{pages.render} writes byte for byte the page L{pages.Page}
        flattens, its slots' values (a hostile title and heading, account
        links, the language switch's arguments) written in place.
        """
        links = [tags.a(pages.player(HOSTILE, HOSTILE), href="/account",
                        class_="account"),
                 tags.a("admin", href="/admin", class_="admin")]
        titles = ["Your account", ["at ", pages.player(HOSTILE)]]
        scripts = [(), ["game.js"]]
        attributes = [None, {"data-game": HOSTILE, "data-live": "1"}]
        for language in i18n.LANGUAGES:
            self.assertTrue(language == "en" or i18n.catalog(language))
            for title, script, attribute in zip(titles, scripts,
                                                attributes):
                content = tags.div(tags.p(HOSTILE), id="x")

                def render(request):
                    request.accountLinks = links
                    return pages.render(request, title, content, script,
                                        attribute)
                code, headers, body = rendered(
                    render, language.encode(),
                    {b"q": [HOSTILE.encode()]})
                self.assertEqual(code, 200)
                expected = b"<!DOCTYPE html>\n" + now(flattenString(
                    None, pages.Page(title, content, script, attribute,
                                     links, language, {"q": HOSTILE})))
                self.assertEqual(body, expected)
                self.assertEqual(headers.getRawHeaders(b"content-length"),
                                 [b"%d" % (len(body),)])
                self.assertIn(b'data-lang="%s"' % (language.encode(),),
                              body)

    def test_failed(self):
        """
        A page whose content fails is answered 500, empty, and the
        failure logged.
        """
        failing = defer.fail(KeyError("k"))

        def render(request):
            return pages.render(request, "Title", tags.p(failing))
        code, headers, body = rendered(render, b"en")
        self.assertEqual((code, body), (500, b""))
        self.assertEqual(len(self.flushLoggedErrors(FlattenerError)), 1)
        self.failureResultOf(failing, KeyError)

    def test_kept(self):
        """
        A shell is frozen once for its language and scripts; the last
        L{pages.SHELLS} are kept, no more.
        """
        shell = pages.frozenShell("zh", ["lobby.js"])
        self.assertIs(pages.frozenShell("zh", ["lobby.js"]), shell)
        self.assertIsNot(pages.frozenShell("en", ["lobby.js"]), shell)
        for n in range(pages.SHELLS + 5):
            pages.frozenShell("en", (), {"data-game": str(n)})
        self.assertLessEqual(len(pages._shells), pages.SHELLS)
        self.assertIsNot(pages.frozenShell("zh", ["lobby.js"]), shell)


class Auth:
    """
    The account page's view of L{hub.web.auth.WebAuth}: a visitor, and a
    CSRF token naming it.
    """

    def __init__(self, visitor):
        self.theVisitor = visitor

    def visitor(self, request):
        return defer.succeed(self.theVisitor)

    def csrfValue(self, request):
        return "token-of-" + self.theVisitor.name


class AccountContentTests(SynchronousTestCase):
    """
    The account page's content: its tree frozen once per language, filled
    at each request with the visitor's values.
    """

    def test_sameAsWhole(self):
        """
        The frozen content, filled, is byte for byte its tree flattened
        with the same values, in each language, for a player or a
        moderator, with or without a display name, a note or an error,
        the box checked or not.
        """
        for language in i18n.LANGUAGES:
            for role, display, keep, said in (
                    ("player", None, False, {}),
                    ("moderator", HOSTILE, True,
                     {"note": ("Your display name is now {0}.",
                               pages.player("alice", HOSTILE))}),
                    ("admin", "\u674e\u96f7", False,
                     {"error": "The new passwords are empty or differ."})):
                visitor = Visitor("alice", role, keepSessions=keep,
                                  display=display)
                page = accountpages.AccountPage(Auth(visitor))

                def content(request):
                    filled = page.content(request, visitor, keep,
                                          shown=display, typed=HOSTILE,
                                          **said)
                    self.assertIsInstance(filled, frozen.Filled)
                    request.write(now(frozen.flattened(request, filled)))
                    request.write(now(flattenString(request, filled)))
                    request.finish()
                    return server.NOT_DONE_YET
                _, _, body = rendered(content, language.encode())
                half = len(body) // 2
                self.assertEqual(body[:half], body[half:])
                self.assertIn(b"token-of-alice", body)
                self.assertEqual(b"/admin" in body, role != "player")
                self.assertEqual(b'checked="checked"' in body, keep)

    def test_page(self):
        """
        The account page in each language: its shell and content frozen,
        the visitor's name, display name and CSRF token in it.
        """
        visitor = Visitor("bob", "player", display=HOSTILE)
        page = accountpages.AccountPage(Auth(visitor))
        for language in i18n.LANGUAGES:
            for n in range(2):
                code, headers, body = rendered(page.render_GET,
                                               language.encode())
                self.assertEqual(code, 200)
                self.assertEqual(headers.getRawHeaders(b"cache-control"),
                                 [b"no-store"])
                self.assertEqual(body.count(b"token-of-bob"), 5)
                self.assertIn(b'lang="%s"' % (language.encode(),), body)
                self.assertNotIn(HOSTILE.encode(), body)
                self.assertIn(b"&lt;b&gt;&amp;amp;", body)
        # Made once per language, whatever the visits.
        self.assertEqual(accountpages.frozenAccount.cache_info().currsize,
                         len(i18n.LANGUAGES))


class NoSharingTests(AccountsWebMixin, TestCase):
    """
    Over HTTP, each visitor's account page has its own name, display name
    and CSRF token, never another's, however often they alternate.
    """

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("alice")
        yield self.addAccount("bob")
        yield self.accounts.setDisplayName("bob", "Bobby")

    @defer.inlineCallbacks
    def test_ownValues(self):
        alice, bob = Browser(self.web), Browser(self.web)
        yield alice.login("alice")
        yield bob.login("bob")
        seen = {}
        for n in range(2):
            for name, browser in (("alice", alice), ("bob", bob)):
                code, _, page = yield browser.get("/account")
                self.assertEqual(code, 200)
                seen.setdefault(name, set()).add(csrfOf(page))
                self.assertIn("<bdi>%s</bdi>" % (name,), page)
                other = "bob" if name == "alice" else "alice"
                self.assertNotIn("<bdi>%s</bdi>" % (other,), page)
                self.assertEqual("Bobby" in page, name == "bob")
        self.assertEqual(len(seen["alice"]), 1)
        self.assertEqual(len(seen["bob"]), 1)
        self.assertNotEqual(seen["alice"], seen["bob"])
