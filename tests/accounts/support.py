"""
What the accounts tests share: a cheap argon2id hasher and an
L{Accounts} over a fresh database of the records tests' kinds.
"""

from argon2 import PasswordHasher
from twisted.internet import reactor

from hub.accounts.model import Accounts

from tests.records import support

SQLiteMixin = support.SQLiteMixin
PostgreSQLMixin = support.PostgreSQLMixin


def cheapHasher():
    """
    An argon2id hasher fast enough for tests.
    """
    return PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)


def openAccounts(testCase, url=None, now=None):
    """
    An L{Accounts} over the test case's fresh database (migrated).
    """
    url = testCase.databaseURL() if url is None else url
    database = support.openDatabase(testCase, url)
    options = {"hasher": cheapHasher()}
    if now is not None:
        options["now"] = now
    return Accounts(database, reactor, **options)
