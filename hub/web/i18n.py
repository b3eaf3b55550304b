"""
The pages' languages: gettext catalogs (C{hub/locale/LANG/LC_MESSAGES/
web.po}, read by L{hub.catalogs}) for the strings of the play page's
scripts, and the choice of a language for a request: C{?lang=} (the
pages' switch, remembered in the C{lang} cookie), else that cookie, else
its C{Accept-Language}, else English.

The pages' Python marks its words with C{_("...")} (L{translator}).  A
translator edits the C{.po} files; C{hub/locale/web.pot} is the template,
extracted from the scripts' C{t("...")} calls and the C{_("...")} and
C{N_("...")} ones of L{SOURCES} (the command is in
C{hub/locale/babel.cfg}; the workflow in C{docs/web.md}).
"""

from __future__ import annotations

from babel import Locale
from typing import Any

from hub import catalogs
from hub.catalogs import LANGUAGES, LOCALE, N_  # noqa: F401 (for the pages)

DOMAIN = "web"
#: The packages (under C{hub/}) whose texts the pages' catalog holds,
#: C{pybabel extract}'s inputs (C{hub/locale/babel.cfg}): the pages', and
#: the words of the stores that the pages say (a Splendor move's,
#: L{hub.records.notation}; an account's refusals,
#: L{hub.accounts.store.AccountError}).
SOURCES = ("web", "records", "accounts", "tournaments")
#: The cookie remembering the language a visitor chose with the switch.
COOKIE = b"lang"
#: Each language's name in itself, for the switch.
NAMES = {"en": "English", "zh": "\u4e2d\u6587"}


def catalog(language: str, domain: str = DOMAIN) -> Any:
    """
    The translations of C{language}'s catalog of C{domain} (the pages'
    by default), as L{hub.catalogs.catalog} reads them.
    """
    return catalogs.catalog(language, domain)


def translator(language: str) -> Any:
    """
    A function translating an English text (a key of the catalogs) to
    C{language}, the text itself when it has no translation: bind it to
    C{_} so that C{pybabel extract} finds the texts.
    """
    found = catalog(language)
    return lambda text: found.get(text, text)


def acceptedLanguages(header: Any) -> Any:
    """
    The language tags of an C{Accept-Language} header, most wanted first
    (a q of 0 refuses a tag).
    """
    weighed = []
    for index, part in enumerate(header.split(",")[:20]):
        tag, _, parameters = part.strip().partition(";")
        quality = 1.0
        parameters = parameters.strip()
        if parameters.startswith("q="):
            try:
                quality = float(parameters[2:])
            except ValueError:
                quality = 0.0
        tag = tag.strip()
        if tag and quality > 0:
            weighed.append((-quality, index, tag))
    return [tag for _, _, tag in sorted(weighed)]


def chooseLanguage(request: Any) -> Any:
    """
    The language of the page answering C{request}: a C{lang} argument
    naming one of L{LANGUAGES}, else the L{COOKIE} naming one, else the
    best of its C{Accept-Language}
    (negotiated by Babel: C{zh-CN}, C{zh-TW} and C{zh} are Chinese),
    else English.
    """
    asked = request.args.get(b"lang", [b""])[0].decode("ascii", "replace")
    if asked in LANGUAGES:
        return asked
    remembered = (request.getCookie(COOKIE) or b"").decode(
        "ascii", "replace")
    if remembered in LANGUAGES:
        return remembered
    header = (request.getHeader(b"accept-language") or b"").decode(
        "latin-1")
    preferred = [tag.replace("_", "-") for tag in acceptedLanguages(header)]
    for tag in preferred:
        if tag == "*":
            break
        best = Locale.negotiate([tag], LANGUAGES, sep="-")
        language = str(best) if best is not None else \
            tag.split("-")[0].lower()
        if language in LANGUAGES:
            return language
    return LANGUAGES[0]


def pageLanguage(request: Any) -> Any:
    """
    L{chooseLanguage} for a page: the answer varies with the request's
    C{Accept-Language} and cookies, and a C{lang} argument (the switch)
    is remembered in the L{COOKIE} for a year.
    """
    language = chooseLanguage(request)
    request.setHeader(b"Vary", b"Accept-Language, Cookie")
    asked = request.args.get(b"lang", [b""])[0]
    # Once, though a page asks for its language more than once.
    if (asked.decode("ascii", "replace") in LANGUAGES and not any(
            c.startswith(COOKIE + b"=") for c in request.cookies)):
        request.addCookie(COOKIE, asked, path=b"/", max_age=b"31536000")
    return language
