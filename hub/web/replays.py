"""
The documents of C{/api/games/ID} that cost more than a request should: a
finished game's, with its replay (the view before the first action and
after each), is built once, at its first request, a few steps a reactor
turn (a L{Cooperator} on the hub's clock), and kept as bytes with its
ETag in a cache bounded by bytes (L{DocumentCache}, the least recently
used let go first); requests that come meanwhile wait for the same
build.  It is kept gzip-compressed (a replay's views compress about
fifty to one), compressed and, for a client that does not take gzip,
inflated a slice a turn too.  A live game's document is spliced from the
texts the feed keeps (L{hub.web.live.LiveGame.snapshotText}).
docs/web.md, "Replays".
"""

from __future__ import annotations

import collections
import hashlib
import time
import zlib
from typing import Any, Dict, Iterator, List, Sequence

import attr
from twisted.internet import defer
from twisted.internet.task import Cooperator
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure

from hub.records import codec
from hub.web import replay, views
from hub.web.live import moveText
from hub.web.stream import encodeJSON

#: Bytes of documents the cache keeps at most, compressed (a replay of
#: 3,000 checkers moves is about 1.4 MB, 30 KB compressed): a few dozen
#: of the longest games, hundreds of ordinary ones.
MAX_BYTES = 1 << 20
#: Seconds of building one reactor turn may take (then the reactor reads
#: and writes before the next).
SLICE_SECONDS = 0.003
#: Steps of a replay built between two looks at the time.
STEPS = 8
#: Bytes of a document compressed, or inflated, between two looks at
#: the time.
PIECE = 64 << 10
#: zlib's level for the documents kept (gzip's own default).
LEVEL = 6
#: zlib's window bits for a gzip stream.
GZIP_BITS = 16 + zlib.MAX_WBITS
#: How long a client may keep a stored game's document without asking
#: again (a stored game never changes).
STORED_CACHE = b"public, max-age=3600"
#: A game that just ended, known by its live id (ids start again when
#: the hub does): kept, but asked again each time (its ETag answers).
FINISHED_CACHE = b"no-cache"


@attr.s(frozen=True)
class Document:
    """
    One game's JSON document, ready to send.

    @ivar data: its bytes as kept: the body, or when C{gzipped}, the body
        gzip-compressed.
    @ivar etag: its strong ETag (quoted), of the body.
    @ivar cacheControl: its C{Cache-Control}.
    @ivar head: how many bytes of C{body} come before its replay.
    @ivar spectators: a finished live game's spectators it says, or None.
    @ivar steps: the steps of its replay.
    @ivar built: the steps built to answer this request: C{steps} for the
        request whose arrival started the build, 0 for the others (the
        cost L{hub.web.api} weighs it by).
    @ivar gzipped: whether C{data} is compressed.
    @ivar length: the body's length (C{data}'s when not compressed).
    """

    data = attr.ib()
    etag = attr.ib()
    cacheControl = attr.ib()
    head = attr.ib(default=0)
    spectators = attr.ib(default=None)
    steps = attr.ib(default=0)
    built = attr.ib(default=0)
    gzipped = attr.ib(default=False)
    length = attr.ib(default=None)

    @classmethod
    def of(cls, text: str, cacheControl: Any, head: int = 0,
           spectators: Any = None, steps: int = 0) -> Any:
        """
        The document of the JSON text C{text} (ASCII, as
        L{encodeJSON} writes it), not compressed.
        """
        plain = cls.plain(text, cacheControl, head, spectators, steps)
        return attr.evolve(plain, etag=quotedTag(
            hashlib.blake2b(plain.data, digest_size=12)))

    @classmethod
    def plain(cls, text: str, cacheControl: Any, head: int = 0,
              spectators: Any = None, steps: int = 0) -> Any:
        """
        The document of C{text} as L{of} makes it, without its ETag yet
        (L{Replays.compress} makes it).
        """
        body = text.encode("ascii")
        return cls(body, None, cacheControl, head, spectators, steps,
                   length=len(body))

    @property
    def body(self) -> bytes:
        """
        The body, inflated at once if it is kept compressed (for a small
        document; L{Replays.inflate} takes a large one a slice a turn).
        """
        if self.gzipped:
            return zlib.decompress(self.data, GZIP_BITS)
        data: bytes = self.data
        return data

    @property
    def bodyLength(self) -> int:
        """
        The length of L{body}.
        """
        return len(self.data) if self.length is None else int(self.length)


def quotedTag(digest: Any) -> bytes:
    """
    A strong ETag of a C{hashlib} digest.
    """
    return b'"' + digest.hexdigest().encode("ascii") + b'"'


def deflating(body: bytes, out: List[bytes], digest: Any) -> Iterator[None]:
    """
    Compress C{body} to a gzip stream appended to C{out}, and add it to
    C{digest}, a L{PIECE} at a time (yielding after each).
    """
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, GZIP_BITS)
    view = memoryview(body)
    for start in range(0, len(body), PIECE):
        piece = view[start:start + PIECE]
        digest.update(piece)
        out.append(compressor.compress(piece))
        yield None
    out.append(compressor.flush())


def inflating(data: bytes, out: List[bytes]) -> Iterator[None]:
    """
    Inflate the gzip stream C{data}, appending the body to C{out} at most
    a L{PIECE} at a time (yielding after each).
    """
    inflater = zlib.decompressobj(GZIP_BITS)
    pending = data
    while pending:
        out.append(inflater.decompress(pending, PIECE))
        pending = inflater.unconsumed_tail
        yield None
    out.append(inflater.flush())


class DocumentCache:
    """
    L{Document}s by key, at most C{maxBytes} of their bodies: a new one
    pushes out the least recently used; one larger than the whole cache
    is not kept.

    @ivar size: the bytes kept.
    """

    def __init__(self, maxBytes: int = MAX_BYTES) -> None:
        self.maxBytes = maxBytes
        self.size = 0
        self._documents: Any = collections.OrderedDict()

    def __len__(self) -> Any:
        return len(self._documents)

    def get(self, key: Any) -> Any:
        """
        The document kept under C{key} (now the most recently used), or
        None.
        """
        document = self._documents.get(key)
        if document is not None:
            self._documents.move_to_end(key)
        return document

    def put(self, key: Any, document: Any) -> None:
        """
        Keep C{document} under C{key}, letting go of the least recently
        used until it fits.
        """
        size = len(document.data)
        if size > self.maxBytes:
            return
        old = self._documents.pop(key, None)
        if old is not None:
            self.size -= len(old.data)
        while self._documents and self.size + size > self.maxBytes:
            _, gone = self._documents.popitem(last=False)
            self.size -= len(gone.data)
        self._documents[key] = document
        self.size += size


def replayParts(kind: str, game: Any, tableEvents: Any, steps: Any,
                moves: Any = None) -> Iterator[Any]:
    """
    Build a replay a few steps at a time: append to C{steps} the JSON text
    of the view of C{game} (the position before the first action), then
    after each action of C{tableEvents} (the events after
    L{hub.tables.events.GameStarted}, any iterable), and to C{moves}
    (unless None) the text of each move; yield every L{STEPS} steps.
    """
    viewOf = views.viewOf
    steps.append(encodeJSON(viewOf(kind, game)))
    replaying = replay.tableModule(kind).replaying(tableEvents, game)
    for ply, (game, event) in enumerate(replaying, 1):
        steps.append(encodeJSON(viewOf(kind, game)))
        if moves is not None:
            moves.append(moveText(kind, event, ply))
        if ply % STEPS == 0:
            yield None


def _slice(seconds: float) -> Any:
    """
    A termination predicate factory for a L{Cooperator}: each turn's work
    ends once C{seconds} have passed.
    """
    def predicate() -> Any:
        end = time.monotonic() + seconds
        return lambda: time.monotonic() >= end
    return predicate


class Replays:
    """
    The documents of finished games, each built once and cached.

    @param clock: the hub's clock (its tracked clock: the build's turns
        are cancelled with its other timers when the hub stops).
    @ivar cache: the L{DocumentCache}.
    @ivar builds: how many documents were built.
    """

    def __init__(self, clock: IReactorTime, maxBytes: int = MAX_BYTES,
                 sliceSeconds: Any = SLICE_SECONDS) -> None:
        self.cache = DocumentCache(maxBytes)
        self.cooperator = Cooperator(
            terminationPredicateFactory=_slice(sliceSeconds),
            scheduler=lambda work: clock.callLater(0, work))
        self.builds = 0
        self._waiting: Dict[Any, Any] = {}

    def document(self, key: Any, work: Any, finish: Any) -> Any:
        """
        A Deferred of the L{Document} cached under C{key}; else C{work}
        (an iterator, run a few steps a reactor turn) is run to its end,
        and C{finish()} makes the document, which is compressed (as
        slowly) and cached.  While one
        is built, the others who ask for it wait for it; the one who
        started the build gets it with its C{built} steps.
        """
        cached = self.cache.get(key)
        if cached is not None:
            return defer.succeed(cached)
        d: Any = defer.Deferred()
        waiting = self._waiting.get(key)
        if waiting is not None:
            waiting.append(d)
            return d
        self._waiting[key] = [d]
        self.builds += 1
        built: Any = self.cooperator.coiterate(work)
        built.addCallback(lambda _: self.compress(finish()))
        built.addCallbacks(self._built, self._failed, (key,), None, (key,))
        return d

    def compress(self, plain: Document) -> Any:
        """
        A Deferred of C{plain} (a L{Document} not compressed) compressed,
        a slice a reactor turn, its ETag made as it is.
        """
        chunks: List[bytes] = []
        digest = hashlib.blake2b(digest_size=12)
        body = plain.data
        d: Any = self.cooperator.coiterate(deflating(body, chunks, digest))
        return d.addCallback(lambda _: attr.evolve(
            plain, data=b"".join(chunks), etag=quotedTag(digest),
            gzipped=True, length=len(body)))

    def inflate(self, document: Document) -> Any:
        """
        A Deferred of C{document}'s body, inflated a slice a reactor turn
        if it is kept compressed.
        """
        if not document.gzipped:
            return defer.succeed(document.body)
        chunks: List[bytes] = []
        d: Any = self.cooperator.coiterate(inflating(document.data, chunks))
        return d.addCallback(lambda _: b"".join(chunks))

    def _built(self, document: Any, key: Any) -> None:
        self.cache.put(key, document)
        first, *others = self._waiting.pop(key)
        first.callback(attr.evolve(document, built=document.steps))
        for d in others:
            d.callback(document)

    def _failed(self, failure: Failure, key: Any) -> None:
        for d in self._waiting.pop(key):
            d.errback(failure)

    def recordDocument(self, record: Any, head: Any,
                       variant: Sequence[Any] = ()) -> Any:
        """
        A Deferred of the L{Document} of a stored game (a
        L{hub.records.record.GameRecord}), its JSON C{head} (the
        record's fields) followed by its replay, its moves and its last
        view.

        @param variant: what of C{head} is not the record's (its seats'
            display names, which change): a document is cached for each.
        """
        kind = record.kind
        steps: List[Any] = []
        moves: List[Any] = []
        started = record.startedAt
        tableEvents = (codec.eventFromJSON(kind, event, started)
                       for event in record.events)
        work = replayParts(kind, replay.restore(kind, record.position),
                           tableEvents, steps, moves)

        def finish() -> Any:
            listed = ",".join(moves)
            return Document.plain(
                '%s,"replay":{"steps":[%s],"moves":[%s]},"moves":[%s],'
                '"view":%s}' % (encodeJSON(head)[:-1], ",".join(steps),
                                listed, listed, steps[-1]), STORED_CACHE,
                steps=len(steps))
        return self.document(("stored", record.gameId, variant), work,
                             finish)

    def finishedDocument(self, game: Any) -> Any:
        """
        A Deferred of the L{Document} of a finished live game (a
        L{hub.web.live.LiveGame}): its snapshot and its replay (None when
        it was too long to keep).  When its number of spectators changes,
        the new snapshot is spliced to the replay already built.
        """
        snapshot = game.snapshotText()[:-1]
        key = ("finished", game.id)
        cached = self.cache.get(key)
        if cached is not None:
            if cached.spectators != game.spectators:
                return self._respliced(key, cached, snapshot,
                                       game.spectators)
            return defer.succeed(cached)
        spectators = game.spectators
        initial = game.initial
        if not game.complete or initial is None:
            return self.document(key, iter(()), lambda: Document.plain(
                snapshot + ',"replay":null}', FINISHED_CACHE,
                len(snapshot), spectators))
        steps: List[Any] = []
        work = replayParts(game.kind, initial, game.tableEvents(), steps)

        def finish() -> Any:
            return Document.plain(
                '%s,"replay":{"steps":[%s],"moves":[%s]}}' % (
                    snapshot, ",".join(steps), ",".join(game.moveTexts())),
                FINISHED_CACHE, len(snapshot), spectators, len(steps))
        return self.document(key, work, finish)

    def _respliced(self, key: Any, cached: Document, snapshot: str,
                   spectators: Any) -> Any:
        # The cached document of a finished game with a new snapshot
        # (its spectators changed) before the same replay, cached.
        def splice(body: bytes) -> Any:
            return self.compress(Document(
                snapshot.encode("ascii") + body[cached.head:], None,
                FINISHED_CACHE, len(snapshot), spectators, cached.steps))

        def keep(document: Document) -> Document:
            self.cache.put(key, document)
            return document
        return self.inflate(cached).addCallback(splice).addCallback(keep)
