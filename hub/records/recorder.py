"""
The recorder: an L{ITableListener} that turns every game a table plays
into a L{GameRecord} when it ends, and writes the records to the database
from a bounded queue, in order, retrying while the database is slow or
down.  A game is never held up by its record.
"""

import collections
import itertools
from typing import (
    Any, Callable, Deque, Dict, List, Optional, Sequence, Tuple, Type,
    cast)

import attr

from twisted.internet import defer
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.ihub import ITable, ITableListener
from hub.records.record import GameRecord
from hub.records import db, store
from hub.records.record import RecordBuilder
from hub.tables import events

MAX_PENDING = 10000
BATCH_SIZE = 50
RETRY_DELAY = 1.0
MAX_RETRY_DELAY = 30.0
STOP_RETRY_DELAY = 0.5
FLUSH_SECONDS = 10.0
# How long the hub's recorder gathers finished games before it writes
# them in one transaction (RecordsService): the writer thread then wakes
# twice a second, not once a game (docs/records.md).
GATHER_SECONDS = 0.5


def _transientErrors() -> Tuple[Type[BaseException], ...]:
    """
    The exception types that mean "the database is unavailable now": the
    record is kept and the write retried.  Any other failure is the
    record's own, and it is dropped after being tried alone.
    """
    return db.unavailableErrors() + (db.SchemaTooNew,)


@implementer(ITableListener)
class Recorder:
    """
    Records the games of every table it listens to.

    @ivar database: the L{hub.records.db.Database}.
    @ivar clock: the L{IReactorTime} of retries and of the stop deadline:
        the hub's tracked clock, which keeps the timers started while the
        hub stops until its services are done.
    @ivar pending: the records waiting to be written, oldest first (the
        oldest may be being written).
    @ivar maxPending: how many records may wait; a game that ends while
        the queue is full is logged and dropped.
    @ivar gatherSeconds: how long a finished game may wait for others to
        be written with it in one transaction (0: written at once, while
        no write is under way); a full batch, and a stopping hub, write
        at once.
    @ivar written: records stored.
    @ivar failed: write attempts that failed.
    @ivar dropped: records given up (queue full, a record the database
        refuses, or still queued when a stopping hub's deadline passed).
    @ivar confirmed: the ids of the last records stored (for tests and
        logs), newest last.
    @ivar eventOf: None (no game is a tournament's), or what
        L{tagEventsWith} was given.
    """

    log = Logger()

    def __init__(self, database: db.Database, clock: IReactorTime,
                 maxPending: int = MAX_PENDING, batchSize: int = BATCH_SIZE,
                 retryDelay: float = RETRY_DELAY,
                 maxRetryDelay: float = MAX_RETRY_DELAY,
                 gatherSeconds: float = 0.0) -> None:
        self.database = database
        self.clock = clock
        self.maxPending = maxPending
        self.batchSize = batchSize
        self.retryDelay = retryDelay
        self.maxRetryDelay = maxRetryDelay
        self.gatherSeconds = gatherSeconds
        self.games: Dict[ITable, RecordBuilder] = {}
        self.pending: Deque[GameRecord] = collections.deque()
        self.written = 0
        self.failed = 0
        self.dropped = 0
        self.confirmed: Deque[Optional[int]] = collections.deque(maxlen=1000)
        self.stopping = False
        self._transient = _transientErrors()
        self._delay = retryDelay
        self._alone = False
        self._writing = False
        self._retryCall: Optional[IDelayedCall] = None
        self._gatherCall: Optional[IDelayedCall] = None
        self._schemaChecked = False
        self._gaveUp = False
        self._idleWaiters: List[defer.Deferred[None]] = []
        self._failureWaiters: List[defer.Deferred[BaseException]] = []
        self.eventOf: Optional[Callable[[str, str], Optional[int]]] = None

    def tagEventsWith(self,
                      eventOf: Callable[[str, str], Optional[int]]) -> None:
        """
        Tag each game's record with C{eventOf(kind, tableName)}: the id
        of the tournament event whose room that is, or None (the
        director's L{hub.tournaments.director.Director.eventOfRoom}, made
        after the records it reads).
        """
        self.eventOf = eventOf

    # ITableListener

    def tableEvent(self, table: ITable, event: object) -> None:
        """
        Follow C{table}'s game from its start; queue its record at its end.
        """
        if type(event) is events.ActionPlayed:
            # Most events: the table keeps them (ITable.actions).
            return
        if isinstance(event, events.GameStarted):
            self.games[table] = RecordBuilder(event, table.actions)
            return
        builder = self.games.get(table)
        if builder is None:
            return
        if isinstance(event, events.GameEnded):
            del self.games[table]
            self.enqueue(self._forEvent(builder.finish(event)))
        else:
            builder.add(event)

    def _forEvent(self, record: GameRecord) -> GameRecord:
        """
        C{record} with the id of the tournament event it was played for.
        """
        if self.eventOf is None:
            return record
        eventId = self.eventOf(record.kind, record.table)
        if eventId is None:
            return record
        return attr.evolve(record, event=eventId)

    # The queue

    def enqueue(self, record: GameRecord) -> None:
        """
        Queue C{record} for writing, or drop it (logged) if the queue is
        full.
        """
        if len(self.pending) >= self.maxPending:
            self.dropped += 1
            self.log.error(
                "records queue full ({count}): dropped the {kind} game of "
                "table {table!r} ({players!r})", count=len(self.pending),
                kind=record.kind, table=record.table,
                players=[s.name for s in record.seats])
            return
        self.pending.append(record)
        self._kick()

    def whenIdle(self) -> defer.Deferred[None]:
        """
        A Deferred that fires once nothing is queued or being written.
        """
        if not self.pending and not self._writing:
            return defer.succeed(None)
        d: defer.Deferred[None] = defer.Deferred()
        self._idleWaiters.append(d)
        return d

    def nextFailure(self) -> defer.Deferred[BaseException]:
        """
        A Deferred that fires with the next failed write's exception.
        """
        d: defer.Deferred[BaseException] = defer.Deferred()
        self._failureWaiters.append(d)
        return d

    def retryNow(self) -> None:
        """
        Retry a write waiting for its delay at once.
        """
        if self._retryCall is not None and self._retryCall.active():
            self._retryCall.cancel()
        self._retryCall = None
        self._kick(gathered=True)

    def _kick(self, gathered: bool = False) -> None:
        """
        Write the oldest queued records, unless a write is under way or
        waits for its retry; or, with L{gatherSeconds}, wait that long
        for more unless C{gathered} (the wait is over, or a retry) or the
        batch is full.
        """
        if self._writing or self._retryCall is not None or self._gaveUp:
            return
        if not self.pending:
            waiters, self._idleWaiters = self._idleWaiters, []
            for d in waiters:
                d.callback(None)
            return
        size = 1 if self._alone else self.batchSize
        if (self.gatherSeconds > 0 and not gathered
                and len(self.pending) < size and not self.stopping):
            if self._gatherCall is None or not self._gatherCall.active():
                self._gatherCall = self.clock.callLater(
                    self.gatherSeconds, self._gathered)
            return
        self._stopGathering()
        batch = list(itertools.islice(self.pending, size))
        self._writing = True
        writing = self.database.runInteraction(
            self._write, batch, not self._schemaChecked, write=True)
        writing.addCallbacks(self._written, self._writeFailed,
                       callbackArgs=(batch,), errbackArgs=(batch,))

    @staticmethod
    def _write(cursor: db.Cursor, batch: Sequence[GameRecord],
               checkSchema: bool) -> List[GameRecord]:
        if checkSchema:
            db.migrate(cursor, cursor.dialect)
        return store.saveRecords(cursor, batch)

    def _unqueue(self, record: GameRecord) -> None:
        if self.pending and self.pending[0] is record:
            self.pending.popleft()

    def _written(self, stored: Sequence[GameRecord],
                 batch: Sequence[GameRecord]) -> None:
        self._writing = False
        self._schemaChecked = True
        self._delay = self.retryDelay
        self._alone = False
        for queued, record in zip(batch, stored):
            self._unqueue(queued)
            self.confirmed.append(record.gameId)
            self.log.info(
                "recorded {kind} game {gameId} of table {table!r} "
                "({reason}{rated})", kind=record.kind, gameId=record.gameId,
                table=record.table, reason=record.reason,
                rated=", rated" if record.rated else "", event="recorded",
                players=[s.name for s in record.seats])
        self.written += len(stored)
        if self._gaveUp:
            # Counted as lost when the stopping hub gave up waiting.
            self.dropped -= len(stored)
        self._kick()

    def _writeFailed(self, failure: Failure,
                     batch: Sequence[GameRecord]) -> None:
        self._writing = False
        self.failed += 1
        waiters, self._failureWaiters = self._failureWaiters, []
        if self._gaveUp:
            pass
        elif failure.check(*self._transient):
            delay = self._delay
            if self.stopping:
                delay = min(delay, STOP_RETRY_DELAY)
            self._delay = min(self._delay * 2, self.maxRetryDelay)
            self.log.warn(
                "records database unreachable ({error}): {count} game(s) "
                "queued, retrying in {delay:.1f}s",
                error=db.firstLine(failure.value), count=len(self.pending),
                delay=delay)
            self._retryCall = self.clock.callLater(delay, self._retry)
        elif len(batch) > 1:
            self._alone = True
            self._kick()
        else:
            record = batch[0]
            self._unqueue(record)
            self.dropped += 1
            self.log.failure(
                "records: dropped the {kind} game of table {table!r} "
                "({players!r}): the database refused it", failure,
                kind=record.kind, table=record.table,
                players=[s.name for s in record.seats])
            self._kick()
        for d in waiters:
            d.callback(cast(BaseException, failure.value))

    def _retry(self) -> None:
        self._retryCall = None
        self._kick(gathered=True)

    def _gathered(self) -> None:
        """
        The oldest queued game has waited L{gatherSeconds}: write what is
        queued.
        """
        self._gatherCall = None
        self._kick(gathered=True)

    def _stopGathering(self) -> None:
        if self._gatherCall is not None:
            if self._gatherCall.active():
                self._gatherCall.cancel()
            self._gatherCall = None

    # Stopping

    def stop(self, timeout: float = FLUSH_SECONDS) -> defer.Deferred[None]:
        """
        The hub is stopping: record the games still under way as
        abandoned, then write everything queued, giving up after
        C{timeout} seconds (what is left is logged as lost).

        @return: a Deferred that fires when done.
        """
        self.stopping = True
        self._stopGathering()
        now = self.clock.seconds()
        for builder in list(self.games.values()):
            self.enqueue(self._forEvent(builder.abandon(now)))
        self.games.clear()
        if self._retryCall is not None:
            self.retryNow()
        else:
            self._kick()
        done = self.whenIdle()
        if done.called:
            return done
        deadline = self.clock.callLater(timeout, self._giveUp)

        def finished(result: Any) -> Any:
            if deadline.active():
                deadline.cancel()
            return result

        return done.addBoth(finished)

    def _giveUp(self) -> None:
        if self._retryCall is not None and self._retryCall.active():
            self._retryCall.cancel()
        self._retryCall = None
        self._stopGathering()
        self._gaveUp = True
        lost = len(self.pending)
        if lost:
            self.dropped += lost
            self.log.error("records: {count} game(s) not confirmed written "
                           "when the hub stopped: lost", count=lost)
        self.pending.clear()
        waiters, self._idleWaiters = self._idleWaiters, []
        for d in waiters:
            d.callback(None)
