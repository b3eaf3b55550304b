"""
The Gomocup ("new") protocol of Piskvork brains, as the manager speaks
it: the commands the hub sends (text lines), the lines a brain answers
(parsed into L{Reply} values), the C{ABOUT} line, a bounded line
splitter taking LF or CRLF, log escaping and the Gomocup time control
(a turn limit and a match bank, with a tolerance).

Pure: bytes and text in, bytes and values out; no I/O, no Twisted.
docs/protocols/engines.md says which commands are sent when.
"""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import attr

#: The board size the hub plays (C{START 15}).
SIZE = 15
#: C{INFO rule 0}: freestyle, five or more in a row wins (the hub's gomoku).
RULE_FREESTYLE = 0
#: C{INFO game_type 1}: the opponent is a brain (0 would be a person).
GAME_TYPE_BRAIN = 1
#: The BOARD fields: a stone of the brain to move, of its opponent.
OWN, OPPONENT = 1, 2
#: What ends a line the hub writes.
NEWLINE = b"\n"
#: Bytes of one line a brain writes past which the rest is dropped.
MAX_LINE = 64 * 1024
#: Characters of one line kept for a log.
LOG_LINE = 500
#: Milliseconds a reply may be later than its limit (the pipe, a loaded
#: machine): a brain that stops just before its limit is not lost on time.
TOLERANCE_MS = 250

#: The columns of the hub's notation (C{h8} is the centre, row 1 at the
#: bottom: hub.records.notation).
COLUMNS = "abcdefghijklmno"

#: The kinds of a brain's line (L{Reply.kind}).
OK, MOVE, ABOUT, MESSAGE, DEBUG, UNKNOWN, ERROR, SUGGEST, OTHER = (
    "ok", "move", "about", "message", "debug", "unknown", "error",
    "suggest", "other")
#: The kinds that end a wait for an answer without one.
FAILURES = (UNKNOWN, ERROR)
#: The kinds that are only logged.
CHATTER = (MESSAGE, DEBUG)

_MOVE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*$")
_ABOUT = re.compile(r'(\w+)\s*=\s*"([^"]*)"')
_KEYWORDS = {"MESSAGE": MESSAGE, "DEBUG": DEBUG, "UNKNOWN": UNKNOWN,
             "ERROR": ERROR, "SUGGEST": SUGGEST}


# The commands (each a line, NEWLINE-ended bytes; BOARD several lines).

def _line(text: str) -> bytes:
    return text.encode("ascii") + NEWLINE


def start(size: int = SIZE) -> bytes:
    """
    C{START size}: the brain answers C{OK} (or C{ERROR ...}).
    """
    return _line("START %d" % (size,))


def info(key: str, value: object) -> bytes:
    """
    C{INFO key value}: no answer.
    """
    if not re.match(r"^[a-z_]+$", key):
        raise ValueError("not an INFO key: %r" % (key,))
    text = str(value)
    if any(c in text for c in "\r\n"):
        raise ValueError("an INFO value is one line: %r" % (text,))
    return _line("INFO %s %s" % (key, text)) if text else _line(
        "INFO %s" % (key,))


def begin() -> bytes:
    """
    C{BEGIN}: the brain plays the first stone, and answers its C{x,y}.
    """
    return _line("BEGIN")


def turn(x: int, y: int) -> bytes:
    """
    C{TURN x,y}: the opponent played C{(x, y)}; the brain answers its move.
    """
    return _line("TURN %d,%d" % (x, y))


def board(moves: Sequence[Tuple[int, int]], toMove: int) -> bytes:
    """
    C{BOARD}, one C{x,y,field} line per stone in the order played, and
    C{DONE}: the brain answers its move.

    @param moves: every stone's C{(x, y)}, black's first, alternating.
    @param toMove: the index of the colour to move (0 black, 1 white);
        its stones are L{OWN}, the others L{OPPONENT}.
    """
    lines = [b"BOARD" + NEWLINE]
    for index, (x, y) in enumerate(moves):
        field = OWN if index % 2 == toMove else OPPONENT
        lines.append(b"%d,%d,%d" % (x, y, field) + NEWLINE)
    lines.append(b"DONE" + NEWLINE)
    return b"".join(lines)


def restart() -> bytes:
    """
    C{RESTART}: a new game on the same board size; the brain answers C{OK}.
    """
    return _line("RESTART")


def about() -> bytes:
    """
    C{ABOUT}: the brain answers one line of C{key="value"} pairs.
    """
    return _line("ABOUT")


def end() -> bytes:
    """
    C{END}: the brain exits (no answer).
    """
    return _line("END")


def infos(turnMs: Optional[int], matchMs: Optional[int],
          timeLeftMs: Optional[int], memoryBytes: int, folder: str,
          gameType: int = GAME_TYPE_BRAIN,
          rule: int = RULE_FREESTYLE) -> bytes:
    """
    The C{INFO} lines of a game's start: C{timeout_turn}, C{timeout_match}
    and C{time_left} (each only with a limit: a brain then has none),
    C{max_memory} (0: none), C{game_type}, C{rule} and C{folder}.
    """
    lines: List[bytes] = []
    if turnMs is not None:
        lines.append(info("timeout_turn", int(turnMs)))
    if matchMs is not None:
        lines.append(info("timeout_match", int(matchMs)))
    if timeLeftMs is not None:
        lines.append(info("time_left", max(0, int(timeLeftMs))))
    lines.append(info("max_memory", int(memoryBytes)))
    lines.append(info("game_type", gameType))
    lines.append(info("rule", rule))
    lines.append(info("folder", folder))
    return b"".join(lines)


# What a brain says.

@attr.s(frozen=True, slots=True)
class Reply:
    """
    One line of a brain's, parsed.

    @ivar kind: one of L{OK}, L{MOVE}, L{ABOUT} (only when asked),
        L{MESSAGE}, L{DEBUG}, L{UNKNOWN}, L{ERROR}, L{SUGGEST}, L{OTHER}.
    @ivar text: the line, without its keyword for the keyword kinds.
    @ivar move: the C{(x, y)} of a L{MOVE} or L{SUGGEST}, else None.
    """

    kind: str = attr.ib()
    text: str = attr.ib(default="")
    move: Optional[Tuple[int, int]] = attr.ib(default=None)


def parse(line: str, askedAbout: bool = False) -> Reply:
    """
    The L{Reply} a brain's C{line} (without its line end) is.

    @param askedAbout: the hub is waiting for C{ABOUT}'s answer: a line
        that is not a keyword is the L{ABOUT} line.
    """
    stripped = line.strip()
    head, _, rest = stripped.partition(" ")
    kind = _KEYWORDS.get(head.upper())
    if kind is not None:
        if kind == SUGGEST:
            match = _MOVE.match(rest)
            return Reply(SUGGEST, rest, (int(match.group(1)),
                                         int(match.group(2)))
                         if match else None)
        return Reply(kind, rest)
    if askedAbout:
        return Reply(ABOUT, stripped)
    if stripped.upper() == "OK":
        return Reply(OK)
    match = _MOVE.match(stripped)
    if match is not None:
        return Reply(MOVE, stripped, (int(match.group(1)),
                                      int(match.group(2))))
    return Reply(OTHER, stripped)


def parseAbout(text: str) -> Dict[str, str]:
    """
    The C{key="value"} pairs of an C{ABOUT} answer (C{name}, C{version},
    C{author}, C{country}, C{www}, C{email}...), keys in lower case, each
    value at most 100 characters.  A line with no pair is a name alone.
    """
    pairs = {key.lower(): value[:100]
             for key, value in _ABOUT.findall(text)}
    if not pairs and text.strip():
        pairs = {"name": text.strip()[:100]}
    return pairs


def escape(line: str, limit: int = LOG_LINE) -> str:
    """
    C{line} as one printable line of a log: control characters and
    backslashes escaped, at most C{limit} characters, then C{...}.
    """
    out = line.encode("unicode_escape").decode("ascii")
    if len(out) > limit:
        out = out[:limit] + "..."
    return out


class LineSplitter:
    """
    A brain's output as lines: LF or CRLF ends one (a lone CR stays in
    its line).  A line longer than C{maxLine} bytes is cut: its first
    C{maxLine} bytes are the line, the rest until its end is dropped
    (counted in L{dropped}), so that memory stays bounded whatever a
    brain prints.

    @ivar dropped: bytes dropped from overlong lines.
    """

    def __init__(self, maxLine: int = MAX_LINE) -> None:
        self.maxLine = maxLine
        self.dropped = 0
        self._buffer = b""
        self._skipping = False

    def feed(self, data: bytes) -> List[str]:
        """
        The lines C{data} completes (decoded as UTF-8, bad bytes replaced,
        without their line ends).
        """
        lines: List[str] = []
        buffer = self._buffer + data
        start = 0
        while True:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            if self._skipping:
                self.dropped += end - start
                self._skipping = False
            else:
                lines.append(self._decode(buffer[start:end]))
            start = end + 1
        rest = buffer[start:]
        if self._skipping:
            self.dropped += len(rest)
            rest = b""
        elif len(rest) > self.maxLine:
            lines.append(self._decode(rest[:self.maxLine]))
            self.dropped += len(rest) - self.maxLine
            self._skipping = True
            rest = b""
        self._buffer = rest
        return lines

    def _decode(self, data: bytes) -> str:
        if len(data) > self.maxLine:
            self.dropped += len(data) - self.maxLine
            data = data[:self.maxLine]
        if data.endswith(b"\r"):
            data = data[:-1]
        return data.decode("utf-8", "replace")


# Time control.

class MatchClock:
    """
    One brain's Gomocup clock in one match: each turn may last
    C{turnMs} (None: no limit), and every turn's time comes out of a
    bank of C{matchMs} (None: no bank) that C{RESTART} does not refill
    (it is the match's, over the event's games when the event says so).
    A turn is lost on time when it lasts longer than its allowance plus
    C{toleranceMs}.
    """

    def __init__(self, turnMs: Optional[int], matchMs: Optional[int],
                 toleranceMs: int = TOLERANCE_MS) -> None:
        self.turnMs = turnMs
        self.matchMs = matchMs
        self.toleranceMs = toleranceMs
        self.leftMs = matchMs
        self.usedMs = 0.0

    @property
    def limited(self) -> bool:
        return self.turnMs is not None or self.matchMs is not None

    def allowanceMs(self) -> Optional[int]:
        """
        What the next turn may last, without the tolerance, or None.
        """
        limits = [m for m in (self.turnMs, self.leftMs) if m is not None]
        return max(0, min(limits)) if limits else None

    def deadlineMs(self) -> Optional[int]:
        """
        Milliseconds after which the next turn is lost on time, or None.
        """
        allowance = self.allowanceMs()
        return None if allowance is None else allowance + self.toleranceMs

    def charge(self, elapsedMs: float) -> bool:
        """
        A turn lasted C{elapsedMs}: take it from the bank.

        @return: True if that turn was lost on time.
        """
        deadline = self.deadlineMs()
        self.usedMs += elapsedMs
        if self.leftMs is not None:
            self.leftMs = max(0, int(self.leftMs - elapsedMs))
        return deadline is not None and elapsedMs > deadline


def moveOnBoard(move: Optional[Tuple[int, int]],
                size: int = SIZE) -> bool:
    """
    True if C{move} is a cell of the board (not that it is empty).
    """
    return (move is not None and 0 <= move[0] < size
            and 0 <= move[1] < size)


def parseOpenings(lines: Iterable[str]) -> List[List[Tuple[int, int]]]:
    """
    An opening list: one opening a line, its stones in the order played
    (black first) in the hub's notation (C{h8 i9 g7}, or with commas);
    blank lines and C{#} comments skipped.

    @raise ValueError: a line that is not one, naming its number.
    """
    openings: List[List[Tuple[int, int]]] = []
    for number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        moves: List[Tuple[int, int]] = []
        for cell in re.split(r"[\s,]+", line):
            match = re.match(r"^([a-o])(\d{1,2})$", cell.lower())
            if match is None or not 1 <= int(match.group(2)) <= SIZE:
                raise ValueError("opening line %d: %r is not a cell (h8)"
                                 % (number, cell))
            move = (COLUMNS.index(match.group(1)),
                    SIZE - int(match.group(2)))
            if move in moves:
                raise ValueError("opening line %d: %s twice" % (number,
                                                                cell))
            moves.append(move)
        openings.append(moves)
    return openings


# Piskvork's game records (.psq).

def psq(moves: Sequence[Tuple[int, int]], timesMs: Sequence[int],
        black: str, white: str, size: int = SIZE) -> str:
    """
    A game as Piskvork saves it (C{.psq}): C{Piskvorky 15x15, 8:8, 0},
    one C{x,y,ms} line per stone in the order played (C{x} and C{y}
    from 1, C{ms} the time its player took), the two players' names
    (black's first) and C{-1}.
    """
    centre = size // 2 + 1
    lines = ["Piskvorky %dx%d, %d:%d, 0" % (size, size, centre, centre)]
    for (x, y), ms in zip(moves, timesMs):
        lines.append("%d,%d,%d" % (x + 1, y + 1, max(0, int(ms))))
    for name in (black, white):
        lines.append(" ".join(str(name).split()) or "-")
    lines.append("-1")
    return "\n".join(lines) + "\n"


def readPsq(text: str) -> Tuple[List[Tuple[int, int]], List[int],
                                 List[str]]:
    """
    The stones (from 0), their times and the names after them of a
    C{.psq} record (LF or CRLF).

    @raise ValueError: it is none.
    """
    rows = [line.strip() for line in text.splitlines()]
    if not rows or not rows[0].startswith("Piskvorky "):
        raise ValueError("not a .psq record")
    moves: List[Tuple[int, int]] = []
    times: List[int] = []
    rest: List[str] = []
    for row in rows[1:]:
        match = re.match(r"^(\d+),(\d+),(-?\d+)$", row)
        if match is not None and not rest:
            moves.append((int(match.group(1)) - 1, int(match.group(2)) - 1))
            times.append(int(match.group(3)))
        elif row and row != "-1":
            rest.append(row)
    return moves, times, rest
