"""
The HTML pages, with L{twisted.web.template}: every string from a player
is a text node or an attribute value, escaped by the flattener, and a
player's text (a name) is shown in a C{<bdi>} with its hidden characters
replaced (L{hub.web.text}).  The boards are drawn by the page's scripts
(C{/static/}) from the JSON API and the event streams; the lobby and the
records' pages are complete without them too.
"""

from __future__ import annotations

import datetime
import json
import re
from collections import OrderedDict
from urllib.parse import urlencode
from typing import Any, Callable, List, Optional, Sequence, Union, cast

from twisted.internet import task
from twisted.logger import Logger
from twisted.web import resource, server
from twisted.web.template import (
    Element, Tag, TagLoader, flattenString, slot, tags)
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure
from twisted.web.server import Request

from hub.catalogs import Refusal, Word
from hub.web import frozen, i18n
from hub.web.i18n import N_
from hub.web.errors import errorsOf, pathSegment, refuse, wellFormedGameId
from hub.web.now import GAME_KINDS
from hub.web.text import displayText, isolatedText

TITLE = "gamehub"
log = Logger()


def player(text: str, display: Any = None) -> Any:
    """
    A player's text (a player's or a room's name) on a page: shown
    (L{displayText}), isolated in a C{<bdi>}; with its account's
    C{display} name (L{hub.accounts.display}), that first, each in its
    own C{<bdi>}: C{李雷 (lilei)}, the protocol name always seen.  Either
    may be a slot (L{hub.web.frozen}), filled with a L{displayText}.
    """
    if not display:
        return tags.bdi(_shown(text))
    return tags.span(tags.bdi(_shown(display), class_="display"),
                     " (", tags.bdi(_shown(text)), ")",
                     class_="named")


def _shown(text: Any) -> Any:
    # A text shown (displayText), or a slot in a frozen tree
    # (L{hub.web.frozen}), to be filled with a text shown.
    return text if isinstance(text, slot) else displayText(text)


def refusalText(error: Refusal,
                _: Callable[[str], str] = lambda text: text) -> List[Any]:
    """
    What a page says of a store's L{hub.catalogs.Refusal} (an
    L{hub.accounts.store.AccountError}, a
    L{hub.tournaments.store.TournamentError}), for a tag's children: its
    template in the page's language (C{_}), its words
    (L{hub.catalogs.Word}) translated, its other arguments (names,
    addresses, commands) each as a L{player}'s text in a C{<bdi>} (as
    C{repr} for C{{0!r}}); a sentence: a capital first (unless an
    argument is), a full stop last unless it has one.
    """
    parts: List[Any] = []
    argument: Any = None
    for i, piece in enumerate(re.split(r"\{(\d+)(?:!([rs]))?\}",
                                       _(error.template))):
        if i % 3 == 0:
            if piece:
                parts.append(piece)
        elif i % 3 == 1:
            argument = error.arguments[int(piece)]
        else:
            if isinstance(argument, Word):
                parts.append(_(argument))
            else:
                parts.append(player(repr(argument) if piece == "r"
                                    else str(argument)))
    if parts and isinstance(parts[0], str):
        parts[0] = parts[0][:1].upper() + parts[0][1:]
    if not (parts and isinstance(parts[-1], str)
            and parts[-1][-1:] in ".!?\u3002\uff01\uff1f"):
        parts.append(".")
    return parts


def guestMark(_: Callable[[str], str] = lambda text: text) -> Any:
    """
    The mark of a guest on a page: a name that is no account's
    (L{hub.accounts}; never under C{--names open}, where no name is).
    """
    return tags.span(_("guest"), class_="tag guest")


def players(names: Any, separator: str, guests: Sequence[Any] = (),
            _: Callable[[str], str] = lambda text: text,
            displays: Sequence[Any] = ()) -> Any:
    """
    The L{player} of each of C{names}, C{separator} between them; those
    whose flag in C{guests} (a list beside C{names}) is true marked as
    guests (L{guestMark}); with their display names in C{displays} (a
    list beside C{names}, None for none).
    """
    parts: List[Any] = []
    guests = list(guests or ())
    displays = list(displays or ())
    for i, name in enumerate(names):
        if parts:
            parts.append(separator)
        parts.append(player(name, displays[i] if i < len(displays)
                            else None))
        if i < len(guests) and guests[i]:
            parts.extend([" ", guestMark(_)])
    return parts


def titleText(title: Any) -> Any:
    """
    A page's title (a string, or a list of strings and L{player}s) as
    plain text, for C{<title>}: each player's text isolated with
    U+2068 ... U+2069 (L{isolatedText}).
    """
    if isinstance(title, str):
        return title
    return "".join(_titlePart(part) for part in title)


def _titlePart(part: Any) -> Any:
    # A player's text isolated (with its display name), a mark (a
    # guest's) in parentheses.
    if not isinstance(part, Tag):
        return part
    if part.attributes.get("class") == "named":
        return "".join(_titlePart(child) for child in part.children)
    text = "".join(cast(List[str], part.children))
    return isolatedText(text) if part.tagName == "bdi" else "(%s)" % (text,)


#: The slots of a page's shell (L{shellTree}): its title (a text), its
#: heading, the header's account links, the content; and the language
#: switch's links (L{switchSlots}).
SHELL_SLOTS = ("title", "heading", "links", "content")


def switchSlots(language: str) -> Any:
    """
    The slots of the language switch's links on a page in C{language}
    (L{languageSwitch}), by language: C{switch_zh}...
    """
    return {other: "switch_" + other for other in i18n.LANGUAGES
            if other != language}


def shellTree(language: str, scripts: Sequence[Any] = (),
              bodyAttributes: Any = None) -> Any:
    """
    A page's shell in C{language} with the C{scripts} and C{bodyAttributes}
    given, its parts that vary from page to page left as slots
    (L{SHELL_SLOTS}; L{shellSlots}).
    """
    _ = i18n.translator(language)
    head = tags.head(
        tags.meta(charset="utf-8"),
        tags.meta(name="viewport",
                  content="width=device-width, initial-scale=1"),
        tags.title(slot("title")),
        tags.link(rel="icon", href="data:,"),
        tags.link(rel="stylesheet", href="/static/hub.css"),
        *[tags.script(src="/static/" + s, type="module") for s in scripts])
    nav = tags.nav(
        tags.a(TITLE, href="/", class_="brand"),
        tags.a(_("play"), href="/play", class_="play"),
        tags.a(_("tournaments"), href="/tournaments",
               class_="tournaments"),
        *[tags.a(_("leaderboard: {0}").format(_(kind)),
                 href="/leaderboard/" + kind)
          for kind in GAME_KINDS],
        slot("links"), languageSwitch(language, {
            other: slot(name)
            for other, name in switchSlots(language).items()}))
    # Every page's scripts read their language and catalog here
    # (C{static/i18n.js}).
    attributes = dict({
        "data-lang": language,
        "data-catalog": json.dumps(i18n.catalog(language),
                                   ensure_ascii=False)},
        **(bodyAttributes or {}))
    body = tags.body(nav, Tag("main")(tags.h1(slot("heading")),
                                      slot("content")),
                     **attributes)
    return tags.html(head, body, lang=language)


def shellSlots(title: Any, content: Any, accountLinks: Sequence[Any] = (),
               language: str = "en", switch: Any = None) -> Any:
    """
    The values of the slots of a page's L{shellTree}: C{title} (a string,
    or a list of strings and L{player}s), C{content}, the header's
    C{accountLinks} (translated to C{language}) and the language switch's
    links keeping the arguments C{switch} (L{switchLinks}).
    """
    _ = i18n.translator(language)
    slots = dict(
        title=titleText(title) + " - " + TITLE,
        heading=title if isinstance(title, str) else list(title),
        links=[translatedLink(link, _) for link in accountLinks],
        content=content)
    for other, link in switchLinks(language, switch or {}).items():
        slots[switchSlots(language)[other]] = link
    return slots


class Page(Element):
    """
    One page: the common header and C{content} (the shell of
    L{shellTree}, flattened whole: the lobby's, made once for all its
    visitors; other pages are L{render}ed from a frozen shell).
    """

    def __init__(self, title: Any, content: Any, scripts: Sequence[Any] = (),
                 bodyAttributes: Any = None, accountLinks: Sequence[Any] = (),
                 language: str = "en", switch: Any = None) -> None:
        Element.__init__(self, TagLoader(Tag("")(shellTree(
            language, scripts, bodyAttributes)).fillSlots(**shellSlots(
                title, content, accountLinks, language, switch))))


#: The most frozen shells kept (L{frozenShell}): one per language and
#: scripts for most pages, one per game for the game pages (whose
#: attributes name the game) until there are this many.
SHELLS = 64
_shells: "OrderedDict[Any, frozen.Frozen]" = OrderedDict()


def frozenShell(language: str, scripts: Sequence[Any] = (),
                bodyAttributes: Any = None) -> frozen.Frozen:
    """
    The L{shellTree} of a page, frozen (L{frozen.freeze}): the last
    L{SHELLS} used are kept.  Its bytes are the same for everybody (the
    header's links to the site's pages in C{language}, and the catalog of
    its translations escaped once); the slots are filled at every page.
    """
    key = (language, tuple(scripts),
           tuple((bodyAttributes or {}).items()))
    found = _shells.get(key)
    if found is None:
        found = frozen.freeze(
            shellTree(language, scripts, bodyAttributes),
            SHELL_SLOTS + tuple(switchSlots(language).values()))
        _shells[key] = found
        if len(_shells) > SHELLS:
            _shells.popitem(last=False)
    else:
        _shells.move_to_end(key)
    return found


#: The header's words that are not in a call of C{_}, marked for the
#: catalogs: the games' names (in Chinese the seeds' names, 五子棋, 跳棋,
#: 璀璨宝石) and the account links' texts (L{hub.web.accountpages},
#: L{hub.web.site}); and the rooms' states.
HEADER_WORDS = (N_("gomoku"), N_("checkers"), N_("splendor"),
                N_("account"), N_("admin"), N_("log in"), N_("log out"),
                N_("playing"), N_("waiting"))

#: The header's link on the pages of a web face with accounts, for a
#: visitor not logged in or not known to the page (C{/account} sends a
#: visitor not logged in to C{/login}): the same on every page.
ACCOUNT_LINKS = (tags.a("account", href="/account", class_="account"),)


def languageSwitch(language: str, links: Any) -> Any:
    """
    The header's switch: a link to this page in each other language, to
    C{links[other]} (L{switchLinks}; in a page's shell, slots).
    """
    return tags.span(*[
        tags.a(i18n.NAMES[other], lang=other, hreflang=other,
               href=links[other], class_="lang-" + other)
        for other in i18n.LANGUAGES if other != language],
        class_="language")


def switchLinks(language: str, arguments: Any) -> Any:
    """
    The addresses of the switch's links (L{languageSwitch}), by language:
    this page in each other language (C{?lang=}, which
    L{i18n.pageLanguage} remembers), keeping the page's other
    C{arguments} (a L{dict} of texts).
    """
    return {other: "?" + urlencode(dict(arguments, lang=other))
            for other in i18n.LANGUAGES if other != language}


def switchArguments(request: Any, code: int = 200) -> Any:
    """
    The arguments of C{request} that the language switch keeps (all but
    C{lang}), as texts: none but a successful GET's (a POST's are its
    form's fields, a password among them; a refusal's are not echoed).
    """
    if request.method != b"GET" or code >= 400:
        return {}
    return {key.decode("utf-8", "replace"): values[0].decode(
                "utf-8", "replace")
            for key, values in request.args.items()
            if key != b"lang" and values}


def filled(text: str, *parts: Any) -> Any:
    """
    A translated C{text} with its C{{0}}, C{{1}}... replaced by C{parts}
    (tags or strings), as a list for a tag's children: the translation
    may put them in another order.
    """
    found = []
    for piece in re.split(r"(\{\d+\})", text):
        if re.fullmatch(r"\{\d+\}", piece):
            found.append(parts[int(piece[1:-1])])
        elif piece:
            found.append(piece)
    return found


def translatedLink(link: Any, translate: Callable[[str], str]) -> Any:
    """
    A header link (a tag) with its text translated, when its text is
    plain (a player's name, in a C{<bdi>}, is kept as it is).
    """
    if not all(isinstance(child, str) for child in link.children):
        return link
    translated = link.clone()
    translated.children = [translate("".join(link.children))]
    return translated


def render(request: Request, title: Any, content: Any,
           scripts: Sequence[Any] = (), bodyAttributes: Any = None,
           code: int = 200,
           language: Optional[str] = None) -> Any:
    """
    Render a page to C{request}: its L{frozenShell} filled with
    C{content} (a tree, or a L{frozen.Filled} one) and the request's
    header links and language switch, written whole with its length (a
    failure to make it is logged and answered 500).

    @param title: a string, or a list of strings and L{player}s.
    @param language: the language of the page (L{i18n}); by default the
        request's (L{i18n.pageLanguage}).

    @return: L{server.NOT_DONE_YET}.
    """
    if language is None:
        language = i18n.pageLanguage(request)
    request.setResponseCode(code)
    # The links of a web face with accounts (L{hub.web.accountpages}).
    links = getattr(request, "accountLinks", ())
    page = frozenShell(language, scripts, bodyAttributes).filled(
        **shellSlots(title, content, links, language,
                     switchArguments(request, code)))
    return bodyOf(request, frozen.flattened(request, page).addCallback(
        lambda body: b"<!DOCTYPE html>\n" + body), "rendering a page failed")


def bodyOf(request: Any, body: Deferred[bytes], failed: str) -> object:
    """
    Answer C{request} with the bytes C{body} fires with, and a
    Content-Length, unless it is gone by then; if C{body} fails, log
    C{failed} and answer 500 with no body.

    @return: L{server.NOT_DONE_YET}, for C{render}.
    """
    finished: List[bool] = []
    request.notifyFinish().addErrback(lambda _: finished.append(True))

    def done(data: bytes) -> None:
        if not finished:
            request.setHeader(b"Content-Length", b"%d" % (len(data),))
            request.write(data)
            request.finish()

    def failure(reason: Failure) -> None:
        log.failure(failed, reason)
        if not finished:
            request.setResponseCode(500)
            request.setHeader(b"Content-Length", b"0")
            request.finish()
    body.addCallbacks(done, failure)
    return server.NOT_DONE_YET


def translatorFor(request: Request) -> Any:
    """
    The translator (L{i18n.translator}) of the language of the page
    answering C{request}.
    """
    return i18n.translator(i18n.pageLanguage(request))


def when(seconds: float) -> Any:
    """
    A UTC time for people.
    """
    if seconds is None:
        return ""
    moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def roomRow(room: Any, _: Callable[[str], str] = lambda text: text) -> Any:
    """
    One room of the lobby as a list item.
    """
    members = []
    for member in room["members"]:
        classes = "member" + (" ready" if member["ready"] else "")
        label = [player(member["name"], member.get("display"))
                 if member["name"] else "?"]
        if member.get("guest"):
            label.extend([" ", guestMark(_)])
        if member["ready"]:
            label.append(" \N{CHECK MARK}")
        if member["bot"]:
            label.append(" " + _("(bot)"))
        members.append(tags.li(*label, class_=classes))
    parts = [tags.span(player(room["name"]), class_="room-name"),
             tags.span(_(room["state"]), class_="state " + room["state"]),
             tags.span("%d/%d" % (len(room["members"]), room["capacity"]),
                       class_="count")]
    if room["locked"]:
        parts.append(tags.span(_("locked"), class_="locked"))
    if room["game"] is not None:
        parts.append(tags.a(_("watch"), href="/games/" + room["game"],
                            class_="watch"))
    return tags.li(tags.div(*parts), tags.ul(*members, class_="members"),
                   class_="room")


def gameRow(game: Any, _: Callable[[str], str] = lambda text: text) -> Any:
    """
    One running game of the lobby.
    """
    return tags.li(tags.a(players(game["players"], _(" vs "),
                                  game.get("guests"), _,
                                  game.get("displays"))
                          or player(game["table"]),
                          href=game["url"], class_="watch"),
                   " ", tags.span(player(game["table"]), class_="room-name"),
                   " ", tags.span(movesText(game["plies"], _),
                                  class_="count"),
                   class_="game")


def movesText(plies: Any, _: Callable[[str], str] = lambda text: text) -> Any:
    """
    C{1 move}, C{2 moves} (as C{lobby.js} says it).
    """
    if plies == 1:
        return _("1 move")
    return _("{0} moves").format(plies)


#: Rooms or games of the lobby page flattened per reactor turn: a page
#: of hundreds of rooms takes tens of milliseconds to flatten, which the
#: players' moves must not wait behind.
ROWS_PER_TURN = 20


def _rows(row: Any, items: Any, later: Any) -> Any:
    # The rows of items, made ROWS_PER_TURN a turn by later (None: at
    # once); a generator, so that the flattener asks for each chunk only
    # once it has written the one before.
    if later is None:
        return [row(item) for item in items]
    return (later(lambda chunk=items[i:i + ROWS_PER_TURN]:
                  [row(item) for item in chunk])
            for i in range(0, len(items), ROWS_PER_TURN))


def lobbyContent(now: Any, later: Any = None,
                 _: Callable[[str], str] = lambda text: text) -> Any:
    """
    The lobby: one section per game kind.

    @param later: None, or a function of a function making rows that
        returns a Deferred of them made in a later reactor turn.
    @param _: the page's translator (L{i18n.translator}).
    """
    sections = []
    for kind in GAME_KINDS:
        data = now["kinds"][kind]
        sections.append(tags.section(
            tags.h2(_(kind)),
            tags.p(tags.span(str(data["online"]), class_="online"),
                   " ", _("players online"), " ",
                   tags.a(_("Play"), href="/play?kind=" + kind,
                          class_="play-kind")),
            tags.h3(_("Games running")),
            tags.ul(_rows(lambda game: gameRow(game, _), data["games"],
                          later), class_="games"),
            tags.h3(_("Rooms")),
            tags.ul(_rows(lambda room: roomRow(room, _), data["rooms"],
                          later), class_="rooms"),
            class_="kind", id="kind-" + kind, **{"data-kind": kind}))
    return tags.div(*sections, id="lobby")


class PlayPage(resource.Resource):
    """
    C{/play}: play gomoku against a bot in the page, over C{/ws}
    (C{play.js}).
    """

    isLeaf = True

    def render_GET(self, request: Request) -> Union[bytes, int]:
        if request.postpath not in ([], [b""]):
            return notFound(request)
        language = i18n.pageLanguage(request)
        _ = i18n.translator(language)
        return render(request, _("Play"), tags.div(
            tags.p("\N{HORIZONTAL ELLIPSIS}"), id="play"),
            scripts=["play.js"], language=language)


class LobbyPage(resource.Resource):
    """
    C{/}: the hub now, kept up to date by C{lobby.js}.
    """

    isLeaf = True

    def __init__(self, web: Any) -> None:
        resource.Resource.__init__(self)
        self.web = web
        clock = web.lobbyFeed.clock
        # The same for everybody (the page is shared): a link to /account
        # on a web face with accounts.
        links = web.accountLinks

        def pageIn(language: str) -> Any:
            def page(now: Any) -> Any:
                return lobbyPage(
                    now, lambda rows: task.deferLater(clock, 0, rows), links,
                    language)
            return page
        # One function per language for the life of the page: it keys the
        # feed's cache.
        self._pages = {language: pageIn(language)
                       for language in i18n.LANGUAGES}

    def render_GET(self, request: Request) -> Union[bytes, int]:
        if request.postpath not in ([], [b""]):
            return notFound(request)
        # Rendered at most once per build of the hub now, whoever asks.
        request.setHeader(b"Content-Type", b"text/html; charset=utf-8")
        return bodyOf(request, self.web.lobbyFeed.rendered(
            self._pages[i18n.pageLanguage(request)]),
            "the lobby page failed")


def lobbyPage(now: Any, later: Any = None, accountLinks: Sequence[Any] = (),
              language: str = "en") -> Deferred[Any]:
    """
    A Deferred of the lobby page of the hub now C{now}, the bytes of a
    whole response body.

    @param later: as for L{lobbyContent}.
    @param accountLinks: the header's account links (L{render}).
    @param language: the page's language (L{i18n}).
    """
    _ = i18n.translator(language)
    d = flattenString(None, Page(_("The hub now"),
                                 lobbyContent(now, later, _),
                                 ["lobby.js"], accountLinks=accountLinks,
                                 language=language))
    return d.addCallback(lambda body: b"<!DOCTYPE html>\n" + body)


def notFound(request: Request, what: Any = N_("Nothing here"),
             *arguments: Any) -> Any:
    """
    A 404 page saying C{what} (an English text of the catalogs, its
    C{{0}}... filled with C{arguments}) in the request's language.
    """
    _ = translatorFor(request)
    return render(request, _("Not found"),
                  tags.p(_(what).format(*arguments)), code=404)


def gone(request: Request, gameId: str, recorded: bool) -> Any:
    """
    The 410 page of a live game that ended and was pushed out of the
    live feed by later ones (L{hub.web.live.Spectating.forgotten}).

    @param recorded: whether the hub keeps records (where the game now
        is, under its record's number).
    """
    _ = translatorFor(request)
    if recorded:
        text = _("Game {0} has ended and is no longer kept live: its "
                 "record is in its players' recent games.")
    else:
        text = _("Game {0} has ended and is no longer kept.")
    return render(request, _("Game over"), tags.p(text.format(gameId)),
                  code=410)


class GamePage(resource.Resource):
    """
    C{/games/ID}: a live game, or a finished one's replay; drawn by
    C{game.js}.
    """

    isLeaf = True

    def __init__(self, web: Any) -> None:
        resource.Resource.__init__(self)
        self.web = web

    def render_GET(self, request: Any) -> Union[bytes, int]:
        if len(request.postpath) != 1 or not request.postpath[0]:
            return notFound(request)
        gameId = pathSegment(request.postpath[0])
        if gameId is None or not wellFormedGameId(gameId):
            return refuse(request, "no such game id", NotFoundPage())
        d = self.web.gameHead(gameId)
        d.addCallback(self._rendered, request, gameId)
        d.addErrback(self._failed, request)
        return server.NOT_DONE_YET

    def _rendered(self, data: Any, request: Request, gameId: str) -> Any:
        if data is None:
            if self.web.spectating.forgotten(gameId):
                return gone(request, gameId, self.web.records is not None)
            return notFound(request, N_("No game {0}"), gameId)
        _ = translatorFor(request)
        seats = data["seats"]
        title = [_(data["kind"]), _(": ")] + players(
            [s["name"] for s in seats], _(" vs "),
            [s.get("guest") for s in seats], _,
            [s.get("display") for s in seats])
        content = tags.div(
            tags.p(tags.span(_("table"), " ", tags.b(player(data["table"])),
                             class_="table-name"),
                   " \N{MIDDLE DOT} ",
                   tags.span("", id="status", class_="status"),
                   " ", tags.span("", id="spectators")),
            tags.div(
                tags.div(tags.div("", id="board", class_="board"),
                         tags.div("", id="controls", class_="controls"),
                         class_="board-column"),
                tags.aside(tags.h2(_("Players")),
                           tags.ol("", id="seats", class_="seats"),
                           tags.h2(_("Moves")),
                           tags.ol("", id="moves", class_="moves"),
                           class_="side"),
                class_="game-layout"),
            id="game")
        render(request, title, content, ["game.js"],
               {"data-game": gameId, "data-kind": data["kind"],
                "data-live": "1" if data["live"] else "0"})

    def _failed(self, failure: Failure, request: Request) -> None:
        logFailure(request, failure)
        if request.startedWriting:
            return
        unavailable(request)


def unavailable(request: Request) -> Any:
    """
    The 503 page of records that cannot be read.
    """
    _ = translatorFor(request)
    return render(request, _("Unavailable"),
                  tags.p(_("The records cannot be read now.")), code=503)


def deferredPage(request: Request, d: Deferred[Any], title: Any,
                 build: Any) -> int:
    """
    Render the page of the data C{d} fires with: 404 for None, 503 when
    the query (or making the page) fails.

    @param title: the title, or a function of the data that makes it.
    @param build: a function of the data and the page's translator that
        makes the content.
    @return: L{server.NOT_DONE_YET}.
    """
    _ = translatorFor(request)

    def done(data: Any) -> Any:
        if data is None:
            return notFound(request)
        return render(request, title(data) if callable(title) else title,
                      build(data, _))

    def failed(failure: Failure) -> None:
        # The query failed, or making its page did.
        logFailure(request, failure)
        if not request.startedWriting:
            unavailable(request)

    d.addCallback(done)
    d.addErrback(failed)
    return server.NOT_DONE_YET


def logFailure(request: Request, failure: Failure) -> None:
    """
    Log C{failure} of C{request}'s page with the site's error log (or the
    module's when the request has none).
    """
    errors = errorsOf(request)
    if errors is not None:
        errors.failed(request, failure)
    else:
        log.failure("web page request failed", failure)


class NotFoundPage(resource.Resource):
    """
    A 404 page.
    """

    isLeaf = True

    def render(self, request: Request) -> Union[bytes, int]:
        return notFound(request)


class NoTournamentsPage(resource.Resource):
    """
    C{/tournaments} of a hub without a database, which keeps no events: a
    404 saying so.
    """

    isLeaf = True

    def render(self, request: Request) -> Union[bytes, int]:
        return notFound(request, N_("This hub keeps no tournaments: it "
                                    "runs without a database (--db none)."))


#: The reasons a game ended, as the records say them (the player pages'
#: results), marked for the catalogs.
REASONS = (N_("normal"), N_("timeout"), N_("forfeit"), N_("illegal"),
           N_("abandoned"))


def playerContent(data: Any,
                  _: Callable[[str], str] = lambda text: text) -> Any:
    """
    A player's rating, games, wins and recent games.
    """
    rating = data["rating"]
    facts = tags.dl(
        tags.dt(_("rating")),
        tags.dd("%.2f" % rating["rating"] if rating else _("not rated yet"),
                class_="rating"),
        tags.dt(_("games")), tags.dd(str(data["games"]), class_="games"),
        tags.dt(_("wins")), tags.dd(str(data["wins"]), class_="wins"),
        class_="facts")
    rows = [tags.tr(tags.td(tags.a("#" + g["id"], href=g["url"])),
                    tags.td(when(g["endedAt"])),
                    tags.td(player(g["table"])),
                    tags.td(players(g["players"], ", ", g.get("guests"), _,
                                    g.get("displays"))),
                    tags.td(_("won") if g["won"] else
                            (_("place {0}").format(g["place"])
                             if g["place"] is not None
                             else _(g["reason"] or ""))))
            for g in data["recent"]]
    note = []
    if data.get("guest"):
        note = [tags.p(guestMark(_), " ", _("This name is no account's: a "
                                            "guest played under it."),
                       class_="guest-note")]
    if data.get("about"):
        note.append(aboutContent(data["about"], data["aboutEvent"], _))
    return tags.div(facts, *note, tags.h2(_("Recent games")), tags.table(
        tags.thead(tags.tr(tags.th(_("game")), tags.th(_("ended")),
                           tags.th(_("table")), tags.th(_("players")),
                           tags.th(_("result")))),
        tags.tbody(*rows), class_="recent"))


#: The pairs of an engine's C{ABOUT} that its player page shows, in
#: order, with their labels.
ABOUT_FIELDS = (("name", N_("engine")), ("version", N_("version")),
                ("author", N_("author")), ("country", N_("country")))


def aboutContent(about: Any, eventId: int,
                 _: Callable[[str], str] = lambda text: text) -> Any:
    """
    An engine's C{ABOUT} (name, version, author, country: those it
    told) on its player page, with a link to the event it told it.
    """
    rows = []
    for key, label in ABOUT_FIELDS:
        if about.get(key):
            rows += [tags.dt(_(label)),
                     tags.dd(tags.bdi(displayText(about[key])), class_=key)]
    return tags.section(
        tags.h2(_("Engine")),
        tags.dl(*rows, class_="facts"),
        tags.p(tags.a(_("As its brain answered ABOUT in event {0}").format(
            eventId), href="/tournaments/%d" % (eventId,))),
        class_="about")


def leaderboardContent(data: Any,
                       _: Callable[[str], str] = lambda text: text) -> Any:
    """
    The leaderboard's table.
    """
    kind = data["kind"]
    rows = [tags.tr(tags.td(str(s["rank"])),
                    tags.td(tags.a(player(s["name"], s.get("display")),
                                   href="/players/%s/%s" % (
                                       kind, _quote(s["name"]))),
                        *([" ", guestMark(_)] if s.get("guest") else [])),
                    tags.td("%.2f" % s["rating"]), tags.td(str(s["games"])),
                    tags.td(str(s["wins"])))
            for s in data["standings"]]
    empty = []
    if data.get("emptyReason"):
        empty = [tags.p(data["emptyReason"], class_="empty",
                        id="empty-reason")]
    return tags.div(
        tags.p(_("Players with at least {0} rated games, by rating "
                 "(mu - 3 sigma).").format(data["minGames"])),
        *empty,
        tags.table(tags.thead(tags.tr(
            tags.th("#"), tags.th(_("player")), tags.th(_("rating")),
            tags.th(_("games")), tags.th(_("wins")))),
            tags.tbody(*rows), class_="leaderboard", id="leaderboard"))


def _quote(name: str) -> Any:
    from urllib.parse import quote
    # A lone surrogate (no UTF-8) would fail the whole page.
    return quote(name, safe="", errors="surrogatepass")


class PlayerPage(resource.Resource):
    """
    C{/players/KIND/NAME}.
    """

    isLeaf = True

    def __init__(self, web: Any) -> None:
        resource.Resource.__init__(self)
        self.web = web

    def render_GET(self, request: Any) -> Union[bytes, int]:
        parts = [pathSegment(p) for p in request.postpath]
        if None in parts:
            return refuse(request, "a malformed path segment",
                          NotFoundPage())
        if len(parts) != 2 or not all(parts):
            return notFound(request)
        kind, name = parts
        _ = translatorFor(request)
        return deferredPage(
            request, self.web.playerData(kind, name),
            lambda data: [player(name, data.get("display")), " ",
                          _("at {0}").format(_(kind))],
            playerContent)


class LeaderboardPage(resource.Resource):
    """
    C{/leaderboard/KIND}.
    """

    isLeaf = True

    def __init__(self, web: Any) -> None:
        resource.Resource.__init__(self)
        self.web = web

    def render_GET(self, request: Any) -> Union[bytes, int]:
        parts = [pathSegment(p) for p in request.postpath]
        if len(parts) != 1 or parts[0] not in GAME_KINDS:
            return notFound(request)
        _ = translatorFor(request)
        return deferredPage(request, self.web.leaderboardData(parts[0]),
                            _("Leaderboard: {0}").format(_(parts[0])),
                            leaderboardContent)
