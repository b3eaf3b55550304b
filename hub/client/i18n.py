"""
The desktop client's language: the same gettext catalogs as the web
face (C{hub/locale/LANG/LC_MESSAGES/}, read by L{hub.catalogs}), in
the C{client} domain: C{client.po} beside the pages' C{web.po}.

The client's strings are marked C{_("...")} (translated where they are
shown) or C{N_("...")} (a constant translated later with C{_}); the
template C{hub/locale/client.pot} is extracted from them::

    pybabel extract -k _ -k N_ --no-location --omit-header \\
        -o hub/locale/client.pot client_pyglet hub/client

The language is chosen once, at start (C{--lang}, else the system
locale: C{LC_ALL}, C{LC_MESSAGES}, C{LANG}, as gettext looks), with
L{setLanguage}.
"""

import os
from typing import Dict, Mapping, Optional

from babel import Locale, UnknownLocaleError

from hub import catalogs
from hub.catalogs import LANGUAGES, N_  # noqa: F401 (for the screens)
from hub.catalogs import LOCALE  # noqa: F401 (the catalogs' folder)

#: The catalog domain of the desktop client.
DOMAIN = "client"
#: The environment variables naming the user's language, first wins (the
#: order of gettext).
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_current = {"language": LANGUAGES[0]}


def catalog(language: str) -> Dict[str, str]:
    """
    The translations of C{language}'s client catalog, as a L{dict} from
    the English text to the translated one (untranslated and fuzzy
    entries left out), read once.
    """
    return catalogs.catalog(language, DOMAIN)


def languageOf(tag: Optional[str]) -> Optional[str]:
    """
    The catalog language of a locale name or tag (C{zh_CN.UTF-8},
    C{zh-TW}, C{en_GB}), or None when there is none for it (C{C},
    C{POSIX}, an unknown language).
    """
    tag = (tag or "").split(".")[0].split("@")[0].strip()
    if not tag or tag in ("C", "POSIX"):
        return None
    try:
        parsed = Locale.parse(tag.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return None
    return parsed.language if parsed.language in LANGUAGES else None


def systemLanguage(environ: Optional[Mapping[str, str]] = None) -> str:
    """
    The language of the system locale: the first of L{LOCALE_VARIABLES}
    that is set (C{LANGUAGE} may list several, colon-separated) and
    names a language with a catalog, else English.
    """
    environ = os.environ if environ is None else environ
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable)
        if not value:
            continue
        for tag in value.split(":"):
            language = languageOf(tag)
            if language is not None:
                return language
        if variable != "LANGUAGE":
            # gettext stops at the first of these that is set
            break
    return LANGUAGES[0]


def setLanguage(language: str) -> None:
    """
    Show the client in C{language} (one of L{LANGUAGES}) from now on.
    """
    if language not in LANGUAGES:
        raise ValueError("no catalog for language %r" % (language,))
    catalog(language)
    _current["language"] = language


def language() -> str:
    """
    The language the client is shown in.
    """
    return _current["language"]


def _(text: str) -> str:
    """
    C{text} (English) in the client's language.
    """
    return catalog(_current["language"]).get(text, text)
