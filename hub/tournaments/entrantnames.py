"""
The name check of one engine's private listener (L{EntrantNames}).
"""

from __future__ import annotations

from typing import Any, Optional

from twisted.internet import defer
from twisted.internet.defer import Deferred
from zope.interface import implementer

from hub.accounts.check import TAKEN
from hub.accounts.interfaces import INameCheck
from hub.accounts.names import nameKey, shownName


@implementer(INameCheck)
class EntrantNames:
    """
    The name check of one engine's private listener: its game's
    (L{hub.accounts.check.GameNameCheck}), for its entrant's own name
    only, with or without a key; any other name is refused as taken, so
    that an engine cannot take another entrant's name (and seat) through
    its listener.
    """

    def __init__(self, names: INameCheck, name: str) -> None:
        self.names = names
        self.name = name

    @property
    def gameKeys(self) -> Any:
        return self.names.gameKeys

    def _own(self, wireName: str) -> bool:
        return nameKey(shownName(wireName)) == nameKey(self.name)

    def check(self, kind: str, wireName: str,
              host: Optional[str]) -> Deferred[Any]:
        if not self._own(wireName):
            return defer.succeed(None)
        return self.names.check(kind, wireName, host)

    def judge(self, kind: str, wireName: str,
              host: Optional[str]) -> Deferred[Any]:
        if not self._own(wireName):
            return defer.succeed(TAKEN)
        return self.names.judge(kind, wireName, host)

    def plainName(self, kind: str, wireName: str) -> str:
        return self.names.plainName(kind, wireName)

    def accountBanned(self, account: str) -> bool:
        return self.names.accountBanned(account)

    def addressBanned(self, host: Optional[str]) -> bool:
        return self.names.addressBanned(host)
