"""
The accounts' pages of the web face: C{/register}, C{/login},
C{/logout}, C{/account} and the forms C{/account} posts to (only with
accounts: C{--names accounts} or C{closed} and a C{--db}; otherwise they
are 404s and no page links to them).  What each does: docs/accounts.md,
"Web".

Every POST carries the browser's CSRF token (L{hub.web.auth}).  A play
key is kept only as its keyed hash, so no page can show it again: a new
key is shown once, on the page that made it.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, Generator, Union

import attr

from twisted.internet import defer
from twisted.logger import Logger
from twisted.web import resource, server
from twisted.web.template import slot, tags
from twisted.python.failure import Failure
from twisted.web.server import Request

from hub.accounts import display, names
from hub.accounts.moderation import mayModerate
from hub.accounts.store import AccountError, AccountExists
from hub.web import i18n, pages
from hub.web.frozen import Frozen, freeze
from hub.web.auth import csrfField, field
from hub.web.errors import errorsOf
from hub.web.i18n import N_
from hub.web.text import displayText

log = Logger()
#: Where a login may send the browser next: a path of this site.
_NEXT = re.compile(r"^/[A-Za-z0-9/_-]*$")


def safeNext(value: Any, default: str = "/account") -> Any:
    """
    C{value} if it is a path of this site (never another site's
    address), else C{default}.
    """
    if value and _NEXT.match(value) and not value.startswith("//"):
        return value
    return default


def redirect(request: Request, location: Any) -> bytes:
    """
    Answer C{request} 303 See Other to C{location} (a path).

    @return: the body.
    """
    request.setResponseCode(303)
    request.setHeader(b"Location", location.encode("ascii"))
    request.setHeader(b"Cache-Control", b"no-store")
    return b""


def visitorLinks(visitor: Any) -> Any:
    """
    The account links of the header for C{visitor} (or None): its
    display name first, as every page shows an account's.
    """
    if visitor is None:
        return list(pages.ACCOUNT_LINKS)
    links = [tags.a(pages.player(visitor.name, visitor.display),
                    href="/account",
                    class_="account")]
    if mayModerate(visitor.role):
        links.append(tags.a("admin", href="/admin", class_="admin"))
    return links


def show(request: Any, visitor: Any, title: Any, content: Any,
         code: int = 200) -> Any:
    """
    Render a page of the accounts (never cached: it may show a key).
    """
    request.accountLinks = visitorLinks(visitor)
    request.setHeader(b"Cache-Control", b"no-store")
    if isinstance(title, str):
        title = pages.translatorFor(request)(title)
    return pages.render(request, title, content, code=code)


def message(*parts: Any, kind: str = "note") -> Any:
    """
    A line that says what happened.
    """
    return tags.p(*parts, class_="message " + kind)


def respond(request: Request, work: Any) -> int:
    """
    Answer C{request} with what C{work()} (a Deferred of a function of the
    request) makes, unless the client has gone; a failure is a 500 and
    is logged (L{hub.web.errors}).

    @return: L{server.NOT_DONE_YET}.
    """
    gone = []
    request.notifyFinish().addErrback(lambda _: gone.append(True))

    def done(answer: Any) -> None:
        if gone:
            return
        body = answer(request)
        if body is not server.NOT_DONE_YET:
            request.write(body)
            request.finish()

    def failed(failure: Failure) -> None:
        errors = errorsOf(request)
        if errors is not None:
            errors.failed(request, failure)
        else:
            log.failure("accounts page failed", failure)
        if not (gone or request.startedWriting):
            request.setResponseCode(500)
            request.write(b"the page failed")
            request.finish()

    defer.maybeDeferred(work).addCallback(done).addErrback(failed)
    return server.NOT_DONE_YET


def refusedForm(request: Request) -> Any:
    """
    A 403 for a POST whose CSRF token is missing or wrong.
    """
    _ = pages.translatorFor(request)
    return show(request, None, N_("Refused"), message(
        _("This form has expired or did not come from this site: go back, "
          "reload the page and try again."), kind="error"), 403)


def labelled(label: str, **attributes: Any) -> Any:
    """
    A labelled input.
    """
    return tags.p(tags.label(label, " ", tags.input(**attributes)))


def keyShown(name: str, key: Any,
             _: Callable[[str], str] = lambda text: text) -> Any:
    """
    A new play key, shown once, with the names that use it.
    """
    return tags.div(
        tags.p(_("Your new play key:"), " ",
               tags.code(key, class_="play-key")),
        tags.p(_("It is shown only now: the hub keeps a keyed hash of it, "
                 "never the key, so no page can show it again (make a new "
                 "one on your account page if you lose it).")),
        tags.p(*pages.filled(
            _("Play as {0} in checkers and {1} in gomoku: everybody else "
              "sees {2}."),
            tags.code(names.keyedName("checkers", name, key)),
            tags.code(names.keyedName("gomoku", name, key)),
            tags.code(name))),
        class_="new-key")


#: Why an account's name is ASCII, said on the forms that take one.
ASCII_WHY = N_("The legacy game clients' protocols allow only the letters "
               "A-Z and a-z, the digits 0-9 and the underscore in a name, "
               "so a name in Chinese cannot be one.")
#: The words of the accounts' pages not in a call of C{_}: the roles.
ROLE_WORDS = (N_("player"), N_("moderator"), N_("admin"))


class NotFound(resource.Resource):
    """
    A 404 page.
    """

    isLeaf = True

    def render(self, request: Request) -> Union[bytes, int]:
        return pages.notFound(request)


class AccountsResource(resource.Resource):
    """
    A page of the accounts: C{render_GET} and C{render_POST} call
    C{get} and C{post} (Deferreds of a function of the request), POSTs
    only with their CSRF token.
    """

    isLeaf = True

    def __init__(self, auth: Any) -> None:
        resource.Resource.__init__(self)
        self.auth = auth

    def render_GET(self, request: Request) -> Union[bytes, int]:
        return respond(request, lambda: self.get(request))

    def render_POST(self, request: Request) -> Union[bytes, int]:
        if not self.auth.csrfValid(request):
            return refusedForm(request)
        return respond(request, lambda: self.post(request))

    def get(self, request: Request) -> Any:
        raise NotImplementedError()

    def post(self, request: Request) -> Any:
        raise NotImplementedError()


class RegisterPage(AccountsResource):
    """
    C{/register}.
    """

    def form(self, request: Any, error: Any = None, name: str = "") -> Any:
        # error: a text already in the page's language.
        _ = pages.translatorFor(request)
        if self.auth.registration == "closed":
            return tags.div(message(_("Registration is closed on this hub: "
                                      "an admin adds accounts.")))
        parts = [message(error, kind="error")] if error else []
        parts.append(tags.form(
            self.auth.csrfInput(request),
            # No maxlength: a browser would cut a longer name silently;
            # the answer says the limit instead.
            labelled(_("Name"), name="name", value=name,
                     required="required", autocomplete="username"),
            tags.p(_("1 to {0} letters, digits or single underscores.")
                   .format(names.MAX_NAME), " ", _(ASCII_WHY),
                   class_="hint"),
            labelled(_("Password"), name="password", type="password",
                     required="required", autocomplete="new-password"),
            labelled(_("Password again"), name="again", type="password",
                     required="required", autocomplete="new-password"),
            *([labelled(_("Invite code"), name="invite",
                        required="required")]
              if self.auth.registration == "invite" else []),
            tags.p(tags.button(_("Register"), type="submit")),
            method="post", action="/register", class_="register"))
        return tags.div(*parts)

    @defer.inlineCallbacks
    def get(self, request: Request) -> Generator[Any, Any, Any]:
        visitor = yield self.auth.visitor(request)
        content = self.form(request)
        return lambda request: show(request, visitor, N_("Register"),
                                    content)

    @defer.inlineCallbacks
    def post(self, request: Request) -> Generator[Any, Any, Any]:
        auth = self.auth
        _ = pages.translatorFor(request)
        name = field(request, "name").strip()
        password = field(request, "password")
        if auth.registration == "closed":
            return lambda request: show(request, None, N_("Register"),
                                        self.form(request), 403)

        def again(error: Any, *arguments: Any, code: int = 400) -> Any:
            # error: an English text of the catalogs, {0}... its arguments.
            content = self.form(request, _(error).format(*arguments), name)
            return lambda request: show(request, None, N_("Register"),
                                        content, code)

        if len(name) > names.MAX_NAME:
            return again(N_("A name has at most {0} characters; this one "
                            "has {1}."), names.MAX_NAME, len(name))
        try:
            names.checkName(name)
        except names.BadName:
            if not names.isLegacyName(name):
                return again(N_("A name is 1 to {0} letters (A-Z, a-z), "
                                "digits or underscores: the legacy game "
                                "clients' protocols allow no other "
                                "character, so a name in Chinese cannot "
                                "be one."), names.MAX_NAME)
            return again(N_("A name has no '__' and does not end with "
                            "'_'."))
        if not password:
            return again(N_("The password is empty."))
        if password != field(request, "again"):
            return again(N_("The passwords differ."))
        if auth.registrationLimited(request):
            return again(N_("Too many tries from your address: wait a "
                            "minute."), code=429)
        invite = field(request, "invite").strip() \
            if auth.registration == "invite" else None
        try:
            key = yield auth.register(name, password, invite)
        except AccountExists:
            return again(N_("An account {0} exists already: log in if it "
                            "is yours."), repr(name))
        except AccountError as e:
            # The invite's (the one other refusal of a registration).
            content = self.form(request, pages.refusalText(e, _), name)
            return lambda request: show(request, None, N_("Register"),
                                        content, 400)
        visitor = yield auth.startSession(request, name)
        content = tags.div(message(*pages.filled(_("Welcome, {0}."),
                                                 pages.player(name))),
                           keyShown(name, key, _),
                           tags.p(tags.a(_("Your account"),
                                         href="/account")))
        return lambda request: show(request, visitor, N_("Registered"),
                                    content)


class LoginPage(AccountsResource):
    """
    C{/login}.
    """

    def form(self, request: Any, error: Any = None, name: str = "") -> Any:
        # error: an English text of the catalogs.
        _ = pages.translatorFor(request)
        parts = [message(_(error), kind="error")] if error else []
        nextPath = safeNext(
            field(request, "next") or
            (request.args or {}).get(b"next", [b""])[0].decode(
                "utf-8", "replace"))
        parts.append(tags.form(
            self.auth.csrfInput(request),
            tags.input(type="hidden", name="next", value=nextPath),
            labelled(_("Name"), name="name", value=name,
                     required="required", autocomplete="username"),
            labelled(_("Password"), name="password", type="password",
                     required="required", autocomplete="current-password"),
            tags.p(tags.button(_("Log in"), type="submit")),
            method="post", action="/login", class_="login"))
        if self.auth.registration != "closed":
            parts.append(tags.p(_("No account?"), " ",
                                tags.a(_("Register"), href="/register")))
        return tags.div(*parts)

    @defer.inlineCallbacks
    def get(self, request: Request) -> Generator[Any, Any, Any]:
        visitor = yield self.auth.visitor(request)
        content = self.form(request)
        return lambda request: show(request, visitor, N_("Log in"),
                                    content)

    @defer.inlineCallbacks
    def post(self, request: Request) -> Generator[Any, Any, Any]:
        name = field(request, "name").strip()
        result = yield self.auth.login(request, name,
                                       field(request, "password"))
        if result == "ok":
            target = safeNext(field(request, "next"))
            return lambda request: redirect(request, target)
        if result == "banned":
            error = N_("This account is banned.")
        else:
            # The same words, whether the name exists, the password is
            # wrong, or the name or the address is past its limit.
            error = N_("Wrong name or password (or too many tries: wait a "
                       "minute).")
        content = self.form(request, error, name)
        return lambda request: show(request, None, N_("Log in"), content,
                                    403)


class LogoutPage(AccountsResource):
    """
    C{/logout}: POST only.
    """

    def render_GET(self, request: Request) -> Union[bytes, int]:
        request.setHeader(b"Allow", b"POST")
        _ = pages.translatorFor(request)
        return show(request, None, N_("Log out"), message(
            _("Log out with the button of your account page.")), 405)

    @defer.inlineCallbacks
    def post(self, request: Request) -> Generator[Any, Any, Any]:
        yield self.auth.logout(request)
        return lambda request: redirect(request, "/")


class AccountPage(AccountsResource):
    """
    C{/account}, C{/account/password} and C{/account/key}.
    """

    isLeaf = False

    def __init__(self, auth: Any) -> None:
        AccountsResource.__init__(self, auth)
        self.putChild(b"password", PasswordChange(auth))
        self.putChild(b"key", NewKey(auth))
        self.putChild(b"sessions", KeepSessions(auth))
        self.putChild(b"display-name", DisplayNameChange(auth))

    def getChild(self, name: bytes, request: Request) -> resource.IResource:
        if name == b"":
            return self
        return NotFound()

    def page(self, request: Request, visitor: Any, note: Any = None,
             error: Any = None, code: int = 200, keep: Any = None,
             typed: Any = None) -> Any:
        """
        The account page of C{visitor} (a function of the request), with
        C{note} or C{error} said first; C{keep} (default: the visitor's,
        read with its session) is whether it keeps its other sessions at
        a login; C{typed}, the display name typed in its form (default:
        the account's).  The display name shown is the visitor's, read
        with its session at this request (one set by this request's form:
        the caller's visitor has it).
        """
        if keep is None:
            keep = visitor.keepSessions
        content = self.content(request, visitor, keep, note, error,
                               visitor.display, typed)
        return lambda request: show(request, visitor, N_("Your account"),
                                    content, code)

    def content(self, request: Request, visitor: Any, keep: Any,
                note: Any = None, error: Any = None, shown: Any = None,
                typed: Any = None) -> Any:
        # note, error: English texts of the catalogs, or tuples of one and
        # the parts that fill it (L{pages.filled}); shown: the display
        # name.  The page's frozen tree in its language (made once), its
        # slots filled with what is this visitor's.
        language = i18n.pageLanguage(request)
        _ = i18n.translator(language)
        said = []
        for text, kind in ((note, "note"), (error, "error")):
            if isinstance(text, tuple):
                said.append(message(*pages.filled(_(text[0]), *text[1:]),
                                    kind=kind))
            elif text:
                said.append(message(_(text), kind=kind))
        value = shown if typed is None else typed
        return frozenAccount(language).filled(
            said=said,
            you=pages.player(visitor.name, shown), role=_(visitor.role),
            moderation=([tags.p(tags.a(_("Moderation"), href="/admin"))]
                        if mayModerate(visitor.role) else []),
            shownName=displayText(visitor.name), name=visitor.name,
            csrf=self.auth.csrfValue(request), display=value or "",
            keep=tags.input(type="checkbox", name="keep", value="on",
                            **({"checked": "checked"} if keep else {})))

    @defer.inlineCallbacks
    def get(self, request: Request) -> Generator[Any, Any, Any]:
        visitor = yield self.auth.visitor(request)
        if visitor is None:
            return lambda request: redirect(request, "/login?next=/account")
        return self.page(request, visitor)


#: The slots of the account page's tree (L{accountTree}): what is said
#: first (a list of L{message}s), the visitor's name (a L{pages.player})
#: and role, the moderators' link (a list), the account's name as shown
#: (L{displayText}) and as it is, the CSRF token, the display name's
#: field's value and the "keep me logged in" box.
ACCOUNT_SLOTS = ("said", "you", "role", "moderation", "shownName", "name",
                 "csrf", "display", "keep")


@functools.lru_cache(maxsize=None)
def frozenAccount(language: str) -> Frozen:
    """
    The account page's L{accountTree} in C{language}, frozen: made once
    per language, for every visitor and every account form's answer.
    """
    return freeze(accountTree(i18n.translator(language)), ACCOUNT_SLOTS)


def accountTree(_: Any) -> Any:
    """
    The content of the account page in the language of C{_} (its
    translator), what varies by visitor left in slots (L{ACCOUNT_SLOTS}).
    """
    csrf = csrfField(slot("csrf"))
    return tags.div(
        slot("said"),
        tags.p(*pages.filled(_("You are {0} ({1})."), slot("you"),
                             slot("role"))),
        slot("moderation"),
        *displayNameForm(_, csrf),
        tags.h2(_("Play key")),
        tags.p(_("Your play key proves your name to the game servers. "
                 "The hub keeps only a keyed hash of it, so it cannot "
                 "be shown again: make a new key to see one (the old "
                 "key stops working).")),
        tags.form(csrf, tags.button(_("Make a new key"), type="submit"),
                  method="post", action="/account/key",
                  class_="new-key-form"),
        tags.h2(_("Password")),
        tags.form(
            csrf,
            labelled(_("Current password"), name="current",
                     type="password", required="required",
                     autocomplete="current-password"),
            labelled(_("New password"), name="password",
                     type="password", required="required",
                     autocomplete="new-password"),
            labelled(_("New password again"), name="again",
                     type="password", required="required",
                     autocomplete="new-password"),
            tags.p(tags.button(_("Change the password"),
                               type="submit")),
            method="post", action="/account/password",
            class_="password-form"),
        tags.h2(_("Sessions")),
        tags.form(
            csrf,
            tags.p(tags.label(
                slot("keep"),
                " ", _("Keep me logged in elsewhere: a new login does "
                       "not end my other sessions"))),
            tags.p(tags.button(_("Save"), type="submit")),
            method="post", action="/account/sessions",
            class_="sessions-form"),
        tags.p(_("Logging out ends all your sessions, in every "
                 "browser.")),
        tags.form(csrf, tags.button(_("Log out"), type="submit"),
                  method="post", action="/logout", class_="logout"))


def displayNameForm(_: Any, csrf: Any) -> Any:
    """
    The account page's section of the display name: its form, with the
    slots of L{accountTree} (the account's name, shown and as it is, in
    the example; its field's value).
    """
    return [
        tags.h2(_("Display name")),
        tags.p(*pages.filled(
            _("A name in any script, shown before yours on this site's "
              "pages and in the desktop client, as in {0}; the legacy game "
              "clients still see only {1}."),
            pages.player(slot("shownName"), "李雷"),
            tags.code(slot("name")))),
        tags.form(
            csrf,
            # No maxlength: a browser would cut a longer one silently.
            labelled(_("Display name"), name="display",
                     value=slot("display"), autocomplete="nickname"),
            tags.p(_("At most {0} characters, no invisible characters and "
                     "no parentheses, and not like another player's name; "
                     "empty, it clears yours.").format(display.MAX_DISPLAY),
                   class_="hint"),
            tags.p(tags.button(_("Save the display name"), type="submit")),
            method="post", action="/account/display-name",
            class_="display-name-form"),
    ]


def displayRefusal(error: Any) -> Any:
    """
    What the account page says of the L{display.DisplayNameRefused}
    C{error}: an English text of the catalogs and the parts that fill
    it.
    """
    if isinstance(error, display.DisplayNameTooLong):
        return (N_("A display name has at most {0} characters; this one "
                   "has {1}."), str(display.MAX_DISPLAY), str(error.length))
    if isinstance(error, display.DisplayNameHidden):
        return (N_("A display name holds no invisible or control "
                   "character; this one holds {0}."),
                tags.code("U+%04X" % (ord(error.character),)))
    if isinstance(error, display.DisplayNameMarks):
        return (N_("A display name has at most {0} combining marks in a "
                   "row."), str(display.MAX_MARKS))
    if isinstance(error, display.DisplayNameParenthesis):
        return (N_("A display name holds no parenthesis: the name it stands "
                   "beside is shown in them."),)
    if getattr(error, "what", None) == "display":
        return (N_("That display name looks like the display name of "
                   "another player, {0}: choose another."),
                pages.player(error.other))
    return (N_("That display name looks like the name of another player, "
               "{0}: choose another."), pages.player(error.other))


class AccountAction(AccountPage):
    """
    A POST of C{/account} (a GET goes back to C{/account}), answered with
    the account page.
    """

    isLeaf = True

    def __init__(self, auth: Any) -> None:
        AccountsResource.__init__(self, auth)

    def render_GET(self, request: Request) -> Union[bytes, int]:
        return redirect(request, "/account")


class PasswordChange(AccountAction):
    """
    C{/account/password} (POST): the current password, then the new one
    twice; the other sessions of the account end.
    """

    @defer.inlineCallbacks
    def post(self, request: Request) -> Generator[Any, Any, Any]:
        auth = self.auth
        visitor = yield auth.visitor(request)
        if visitor is None:
            return lambda request: redirect(request, "/login?next=/account")
        password = field(request, "password")

        if not password or password != field(request, "again"):
            return self.page(
                request, visitor, error=N_("The new passwords are empty or "
                                           "differ."), code=400)
        result = yield auth.checkPassword(request, visitor.name,
                                          field(request, "current"))
        if result != "ok":
            return self.page(
                request, visitor, error=N_("Wrong current password (or too "
                                           "many tries)."), code=403)
        # Every session of the account ends with the change (and its live
        # sockets, here at once); this browser gets a new one.
        yield auth.accounts.setPassword(visitor.name, password,
                                        actor=auth.actor(request, visitor))
        auth.sessions.ended(visitor.name)
        yield auth.startSession(request, visitor.name)
        return self.page(request, visitor, note=N_(
            "Password changed; your other sessions have ended."))


class NewKey(AccountAction):
    """
    C{/account/key} (POST): a new play key, shown once.
    """

    @defer.inlineCallbacks
    def post(self, request: Request) -> Generator[Any, Any, Any]:
        visitor = yield self.auth.visitor(request)
        if visitor is None:
            return lambda request: redirect(request, "/login?next=/account")
        key = yield self.auth.accounts.newKey(
            visitor.name, actor=self.auth.actor(request, visitor))
        _ = pages.translatorFor(request)
        content = tags.div(keyShown(visitor.name, key, _),
                           tags.p(tags.a(_("Your account"),
                                         href="/account")))
        return lambda request: show(request, visitor,
                                    N_("Your new play key"), content)


class KeepSessions(AccountAction):
    """
    C{/account/sessions} (POST): whether a new login ends the account's
    other sessions (unchecked, the default) or keeps them.
    """

    @defer.inlineCallbacks
    def post(self, request: Request) -> Generator[Any, Any, Any]:
        visitor = yield self.auth.visitor(request)
        if visitor is None:
            return lambda request: redirect(request, "/login?next=/account")
        keep = field(request, "keep") == "on"
        yield self.auth.accounts.setKeepSessions(visitor.name, keep)
        return self.page(request, visitor, note=(
            N_("A new login keeps your other sessions.") if keep else
            N_("A new login ends your other sessions.")), keep=keep)


class DisplayNameChange(AccountAction):
    """
    C{/account/display-name} (POST): set the account's display name, or
    clear it with an empty one; a refusal is said in the page's language,
    the text typed kept in the form.
    """

    @defer.inlineCallbacks
    def post(self, request: Request) -> Generator[Any, Any, Any]:
        auth = self.auth
        visitor = yield auth.visitor(request)
        if visitor is None:
            return lambda request: redirect(request, "/login?next=/account")
        text = field(request, "display")
        try:
            shown = yield auth.accounts.setDisplayName(
                visitor.name, text, actor=auth.actor(request, visitor))
        except display.DisplayNameRefused as e:
            return self.page(request, visitor,
                                     error=displayRefusal(e), code=400,
                                     typed=text)
        if auth.displays is not None:
            # Seen here at once; elsewhere, at the change's reading.
            auth.displays.changed([names.nameKey(visitor.name)])
        # The page shows the display name set.
        visitor = attr.evolve(visitor, display=shown)
        if shown is None:
            note = N_("Your display name is cleared.")
        else:
            note = (N_("Your display name is now {0}."),
                    pages.player(visitor.name, shown))
        return self.page(request, visitor, note=note)
