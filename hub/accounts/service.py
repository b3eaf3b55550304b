"""
The accounts as a part of the hub: the L{NameService} that C{twistd
gamehub}'s C{--names} asks for, over the records database.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Mapping, Optional

from twisted.internet.interfaces import IReactorThreads

from hub.accounts import store
from hub.accounts.check import NameService
from hub.accounts.hashing import HashingPool
from hub.accounts.model import Accounts
from hub.accounts.moderation import Moderation, Publish
from hub.records import db

if TYPE_CHECKING:
    from hub.records.service import RecordsService


def loadNow(service: NameService, url: db.DatabaseURL) -> None:
    """
    Read what C{service} starts from now, blocking (the hub's start,
    before the reactor runs), so that names are checked from the first
    connection; the names' skeletons are made first if they need it
    (L{store.fillSkeletons}).  A database that cannot be read yet is not
    fatal: names are refused until the first refresh reads it.
    """
    try:
        connection = db.connect(url)
    except Exception as e:
        service.log.warn("accounts unreadable at start ({error}); names "
                         "are refused until they are", error=str(e).strip())
        return
    try:
        cursor = db.Cursor(connection.cursor(), url.dialect)
        if url.dialect.begin:
            cursor.execute(url.dialect.begin)
        setup = store.nameSetup(cursor, time.time())
        connection.commit()
    finally:
        connection.close()
    service.setUp(setup)


def nameService(options: Mapping[str, Any],
                records: Optional[RecordsService], top: Any,
                reactor: IReactorThreads,
                publish: Optional[Publish] = None) -> Optional[NameService]:
    """
    The L{NameService} of C{--names accounts} or C{closed} over
    C{records} (a L{hub.records.service.RecordsService}), or None for
    C{--names open} or without records (C{--db none}): then no name is
    checked, as before accounts.  Its C{moderation} is the hub's
    L{Moderation} (for C{/admin} and the admin API).  Its accounts hash
    passwords in the hub's L{HashingPool} (a child of C{top}).
    """
    mode = options.get("names", "open")
    if mode == "open" or records is None:
        return None
    hashing = HashingPool(reactor)
    # (Twisted's Service has no annotations.)
    hashing.setServiceParent(top)  # type: ignore[no-untyped-call]
    accounts = Accounts(records.database, reactor, hashing=hashing)
    service = NameService(
        accounts, top.clock, top.sessions, mode,
        moderate=lambda names: Moderation(accounts, names, top.lobby,
                                          top.sessions, publish))
    loadNow(service, records.database.url)
    return service
