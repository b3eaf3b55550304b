"""
The files of a tournament's engine runs: the per-game path of an
entrant's log (L{gamePath}, each part made safe by L{pathPart}) and the
bounded log itself (L{GameLog}), its play key masked.
"""

import os
from io import FileIO
from typing import Iterable, Optional

#: Bytes of one game log past which an engine's output is no longer
#: read (the engine then waits on its full pipe).
LOG_CAP = 1024 * 1024
#: What replaces a play key in a log.
MASK = b"[key]"
#: Characters kept as they are in a log's path.
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                  "0123456789-_")


def pathPart(text: object) -> str:
    """
    C{text} as one safe path component: letters, digits, C{-} and C{_}
    as they are, every other byte of its UTF-8 as C{%XX}.  The result
    has no C{/} and no C{.}, so it is never C{..} or hidden, and two
    different texts never give the same part.

    @raise ValueError: C{text} is empty.
    """
    text = str(text)
    if not text:
        raise ValueError("an empty path part")
    return "".join(
        chr(byte) if chr(byte) in _SAFE else "%{:02X}".format(byte)
        for byte in text.encode("utf-8", "surrogatepass"))


def fromPathPart(part: str) -> str:
    """
    The text L{pathPart} made C{part} from.

    @raise ValueError: C{part} is not one L{pathPart} makes.
    """
    if not part or pathPart(
            _unquote(part).decode("utf-8", "surrogatepass")) != part:
        raise ValueError("not a path part: {!r}".format(part))
    return _unquote(part).decode("utf-8", "surrogatepass")


def _unquote(part: str) -> bytes:
    pieces = part.split("%")
    data = bytearray(pieces[0].encode("ascii"))
    for piece in pieces[1:]:
        data += bytes.fromhex(piece[:2]) + piece[2:].encode("ascii")
    return bytes(data)


def gamePath(root: str, event: object, room: str, name: str,
             suffix: str = "") -> str:
    """
    The path under C{root} of what belongs to entrant C{name} in game
    C{room} of event C{event}: C{root/EVENT/ROOM/NAME+suffix}, each part
    through L{pathPart}.

    @raise ValueError: an empty part, or (it cannot be) a path outside
        C{root}.
    """
    base = os.path.realpath(root)
    path = os.path.join(base, pathPart(event), pathPart(room),
                        pathPart(name) + suffix)
    if os.path.commonpath([base, os.path.realpath(path)]) != base:
        raise ValueError("{!r} is outside {!r}".format(path, base))
    return path


class GameLog:
    """
    The log of one engine in one game: what it writes, up to C{cap}
    bytes in the file, then a note of what was dropped; its C{secrets}
    (its play key) masked, even when a write splits one.

    @param path: the file, appended to (a game played again after a
        restart adds to the log of the first try).
    @param cap: bytes the file may reach before output is dropped.
    @param secrets: texts never written (L{MASK} instead).
    @ivar dropped: bytes of output dropped for the cap.
    """

    def __init__(self, path: str, cap: int = LOG_CAP,
                 secrets: Iterable[str] = ()) -> None:
        self.path = path
        self.cap = cap
        self._secrets = [s.encode("utf-8") for s in secrets if s]
        self._file: Optional[FileIO] = open(path, "ab", buffering=0)
        self.size = os.fstat(self._file.fileno()).st_size
        self.dropped = 0
        self._pending = b""

    def _mask(self, data: bytes) -> bytes:
        for secret in self._secrets:
            data = data.replace(secret, MASK)
        return data

    def write(self, data: bytes) -> None:
        """
        Log C{data} (bytes the engine wrote): masked, and within the cap.
        """
        if self._file is None:
            return
        data = self._mask(self._pending + data)
        # Hold back a tail that may be the start of a secret.
        keep = 0
        for secret in self._secrets:
            for length in range(min(len(secret) - 1, len(data)), keep, -1):
                if data.endswith(secret[:length]):
                    keep = length
                    break
        self._pending = data[len(data) - keep:] if keep else b""
        self._append(data[:len(data) - keep])

    def _append(self, data: bytes) -> None:
        assert self._file is not None
        room = self.cap - self.size
        if room > 0:
            chunk = data[:room]
            self._file.write(chunk)
            self.size += len(chunk)
            data = data[len(chunk):]
        if data:
            if not self.dropped:
                self._file.write(b"\n# [the log reached %d bytes: more "
                                 b"output is dropped]\n" % (self.cap,))
            self.dropped += len(data)

    def note(self, text: str) -> None:
        """
        Write one line of the runner's own (C{# text}), masked, whatever
        the cap (the notes of one game are few and short).
        """
        if self._file is None:
            return
        self._file.write(self._mask(
            b"# " + text.encode("utf-8", "replace") + b"\n"))

    def close(self, ending: Optional[str] = None) -> None:
        """
        Write what was held back, the count of dropped bytes and
        C{ending} (a note), and close the file.
        """
        if self._file is None:
            return
        if self._pending:
            self._append(self._pending)
            self._pending = b""
        if self.dropped:
            self.note("{} bytes of output dropped past the {}-byte cap"
                      .format(self.dropped, self.cap))
        if ending:
            self.note(ending)
        self._file.close()
        self._file = None
