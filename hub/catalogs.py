"""
The gettext catalogs of the hub's faces (C{hub/locale/LANG/LC_MESSAGES/
DOMAIN.po}, read with Babel): the web pages' C{web} domain and the
desktop client's C{client} domain share the folder and the languages,
so both faces (L{hub.web.i18n}, L{hub.client.i18n}) read them here;
and the stores' refusals (L{Refusal}) that a page says in its language.
"""

import os
from typing import Any, Callable, Dict, Tuple

from babel.messages.pofile import read_po

#: The catalogs' folder.
LOCALE = os.path.join(os.path.dirname(__file__), "locale")
#: The languages with a catalog, the first the default.
LANGUAGES = ("en", "zh")
_catalogs: Dict[Tuple[str, str], Dict[Any, Any]] = {}


def catalog(language: str, domain: str) -> Dict[Any, Any]:
    """
    The translations of C{language}'s catalog of C{domain}, as a L{dict}
    from the English text to the translated one (untranslated and fuzzy
    entries left out), read once.
    """
    found = _catalogs.get((language, domain))
    if found is None:
        path = os.path.join(LOCALE, language, "LC_MESSAGES",
                            domain + ".po")
        with open(path, "rb") as f:
            messages = read_po(f, locale=language)
        found = _catalogs[language, domain] = {
            message.id: message.string for message in messages
            if message.id and message.string and not message.fuzzy}
    return found


class Word(str):
    """
    A text of the catalogs given as an argument of another one's
    template (a role in "a {0} may not {1} a {2}"): translated with it,
    where a name given so is not.
    """


class Refusal(Exception):
    """
    Something a store refused; its text says why, in one line, without
    secrets: an English template of the web's catalogs (marked C{N_})
    filled with its arguments (C{{0}}...), so that a page says it in its
    language (L{translated}, L{hub.web.pages.refusalText}); C{str} of it
    is the English (the command lines, the logs and the JSON APIs').

    @ivar template: the template.
    @ivar arguments: what fills it: names as they are, and L{Word}s,
        translated with it.
    """

    def __init__(self, template: str, *arguments: object) -> None:
        Exception.__init__(self, template.format(*arguments)
                           if arguments else template)
        self.template = template
        self.arguments = arguments

    def translated(self, translate: Callable[[str], str]) -> str:
        """
        The text in the language of C{translate} (a translator of the
        web's catalogs, L{hub.web.i18n.translator}).
        """
        if not self.arguments:
            return translate(self.template)
        return translate(self.template).format(
            *[translate(a) if isinstance(a, Word) else a
              for a in self.arguments])


def N_(text: str) -> str:
    """
    Mark C{text} for the catalogs where it is not translated yet (it is
    given to a translator later, where it is shown): C{text} itself.
    """
    return text
