"""
Pairing rules of the three formats: pure, no Twisted, no database.

Each function takes what has happened (the entrants, the event's
L{Game}s so far) and returns the next games as L{Game}s without points;
seat 0 first (gomoku: seat 0 plays black).

    - L{roundRobin}: the whole schedule at once;
    - L{swissRound}: the next Swiss round (a maximum weight matching,
      networkx, for two players);
    - L{arenaPairings}: whoever is free, paired at once.

What each guarantees (colours, rematches, byes, tables of N):
docs/tournaments.md, "How it runs", "Pairing rules".
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from typing import (
    Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, cast)

from hub.tournaments.standings import Game, byePoints, points

__all__ = ["roundRobin", "swissRound", "arenaPairings", "ArenaTally",
           "colourBalance", "opponents", "points", "FORMATS"]

ROUND_ROBIN = "round-robin"
SWISS = "swiss"
ARENA = "arena"
FORMATS = (ROUND_ROBIN, SWISS, ARENA)


def _bergerRounds(names: Sequence[str]) -> List[List[Tuple[str, ...]]]:
    """
    Single round robin by the circle method: rounds of pairs (seat 0
    first), a one-name tuple for the bye when the count is odd.
    """
    players: List[Optional[str]] = list(names)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    rounds: List[List[Tuple[Optional[str], ...]]] = []
    for r in range(n - 1):
        pairs: List[Tuple[Optional[str], ...]] = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            # Alternate the fixed player's colour and the others' by
            # board so that colours stay balanced across the rounds.
            if (i == 0 and r % 2) or (i > 0 and i % 2):
                a, b = b, a
            if a is None:
                pairs.append((b,))
            elif b is None:
                pairs.append((a,))
            else:
                pairs.append((a, b))
        rounds.append(pairs)
        players = [players[0], players[-1]] + players[1:-1]
    # No pair holds the bye's None.
    return cast(List[List[Tuple[str, ...]]], rounds)


def roundRobin(names: Sequence[str], tableSize: int = 2) -> List[Game]:
    """
    The whole schedule of a round robin, byes included (with points).

    @param names: The entrants, in entry order.
    @param tableSize: Players per game.
    """
    if tableSize == 2:
        single = _bergerRounds(names)
        rounds = single + [[tuple(reversed(p)) for p in pairs]
                           for pairs in single]
        return _numbered(rounds, tableSize)
    return _numbered(_packedTables(names, tableSize), tableSize)


def _packedTables(names: Sequence[str], size: int) -> \
        List[List[Tuple[str, ...]]]:
    """
    Every C{size}-subset of C{names}, packed greedily into rounds of
    disjoint tables; each table's seats rotated so that every entrant
    sits in each seat about as often.
    """
    remaining = [tuple(c) for c in itertools.combinations(names, size)]
    seatCounts: Dict[str, Counter[int]] = defaultdict(Counter)
    rounds = []
    while remaining:
        busy: Set[str] = set()
        tables = []
        rest = []
        for table in remaining:
            if busy.isdisjoint(table):
                busy.update(table)
                tables.append(_rotate(table, seatCounts))
            else:
                rest.append(table)
        remaining = rest
        rounds.append(tables)
    return rounds


def _rotate(table: Sequence[str], seatCounts: Dict[str, Counter[int]]) -> \
        Tuple[str, ...]:
    """
    The rotation of C{table} that puts entrants in the seats they have
    sat in least; C{seatCounts} is updated.
    """
    size = len(table)
    best = min(
        (tuple(table[(start + i) % size] for i in range(size))
         for start in range(size)),
        key=lambda order: sum(seatCounts[n][s] for s, n in enumerate(order)))
    for seat, name in enumerate(best):
        seatCounts[name][seat] += 1
    return best


def _numbered(rounds: Iterable[Sequence[Tuple[str, ...]]],
              tableSize: int) -> List[Game]:
    games = []
    for r, tables in enumerate(rounds, 1):
        games.extend(_roundGames(r, tables, tableSize))
    return games


def colourBalance(name: str, games: Iterable[Game]) -> int:
    """
    How many more times C{name} sat in seat 0 than in seat 1 (two-player
    games, played or scheduled; byes do not count).
    """
    balance = 0
    for game in games:
        if game.bye or name not in game.seats:
            continue
        balance += 1 if game.seats[0] == name else -1
    return balance


def opponents(name: str, games: Iterable[Game]) -> Set[str]:
    """
    Everyone C{name} met (or is scheduled to meet).
    """
    met: Set[str] = set()
    for game in games:
        if name in game.seats:
            met.update(game.seats)
    met.discard(name)
    return met


def _byeFor(names: Sequence[str], games: Sequence[Game],
            score: Mapping[str, float]) -> str:
    """
    The entrant to get the bye: the lowest-scored without one yet (then
    the last by name), or the lowest-scored of all if everyone had one.
    """
    hadBye = {g.seats[0] for g in games if g.bye}
    candidates = [n for n in names if n not in hadBye] or list(names)
    return min(candidates, key=lambda n: (score[n], _reverse(n)))


def _reverse(name: str) -> Tuple[int, ...]:
    # Sorts names backwards, so that min() picks the last name.
    return tuple(-ord(c) for c in name) + (0,)


def swissRound(names: Sequence[str], games: Sequence[Game], round: int,
               tableSize: int = 2) -> List[Game]:
    """
    The games of Swiss round C{round}.

    @param names: The entrants still in the event, in entry order.
    @param games: Every game of the earlier rounds (finished).
    @param round: The round to pair, from 1.
    @param tableSize: Players per game.
    """
    score = points(names, games)
    playing = list(names)
    tables: List[Tuple[str, ...]] = []
    while len(playing) % tableSize and len(playing) >= 1:
        bye = _byeFor(playing, games, score)
        playing.remove(bye)
        tables.append((bye,))
    if tableSize == 2:
        tables.extend(_swissPairs(playing, games, score))
    else:
        tables.extend(_scoreTables(playing, games, score, tableSize))
    return _roundGames(round, tables, tableSize)


def _roundGames(round: int, tables: Sequence[Tuple[str, ...]],
                tableSize: int) -> List[Game]:
    """
    The games of one round: boards numbered from 1, byes from -1 down
    (with their points).
    """
    out = []
    board = bye = 0
    for seats in sorted(tables, key=lambda t: len(t) == 1):
        if len(seats) == 1:
            bye -= 1
            out.append(Game(round, bye, tuple(seats),
                            (byePoints(tableSize),)))
        else:
            board += 1
            out.append(Game(round, board, tuple(seats)))
    return out


def _seatOrder(a: str, b: str, balance: Mapping[str, int],
               rank: Mapping[str, int]) -> Tuple[str, str]:
    """
    Who of C{a} and C{b} sits in seat 0: the one that leaves the larger
    of the two balances smaller; on a tie, the one with the lower
    balance, then the lower-ranked.
    """
    def cost(first: str, second: str) -> Tuple[int, int, int]:
        worst = max(abs(balance[first] + 1), abs(balance[second] - 1))
        return (worst, balance[first], -rank[first])
    return min([(a, b), (b, a)], key=lambda order: cost(*order))


#: Swiss fields larger than twice this are paired chunk by chunk: the
#: entrants in rank order cut into chunks of about CHUNK, each matched
#: exactly.  A chunk takes in, ahead of their rank, the next entrants
#: whose colour it lacks (floaters), so that it can keep every balance
#: within one; one that still cannot be paired cleanly (rematches) grows
#: by half a chunk, at most MAX_GROWTH times.  That keeps a
#: 1,000-entrant round within 200 ms (bench/swiss_pairing.py).
CHUNK = 16
MAX_GROWTH = 4


def _history(names: Sequence[str], games: Iterable[Game]) -> \
        Tuple[Dict[str, int], Dict[str, Set[str]]]:
    """
    Each entrant's colour balance (L{colourBalance}) and opponents
    (L{opponents}), in one pass over C{games}.
    """
    balance = {n: 0 for n in names}
    met: Dict[str, Set[str]] = {n: set() for n in names}
    for game in games:
        if game.bye:
            continue
        for seat, name in enumerate(game.seats):
            if name in balance and len(game.seats) == 2:
                balance[name] += 1 if seat == 0 else -1
            if name in met:
                met[name].update(game.seats)
                met[name].discard(name)
    return balance, met


def _swissPairs(names: Sequence[str], games: Sequence[Game],
                score: Mapping[str, float]) -> List[Tuple[str, str]]:
    """
    Pair C{names} (an even count) for one Swiss round: a maximum
    cardinality matching of maximum weight (networkx) over the pairs
    that have not met.  The weights order, most important first: a pair
    that leaves both colour balances within one; closer scores; a pair
    whose colour preferences differ; closer ranks.  Without a perfect
    matching of new pairs, rematches are allowed.

    Up to 2 L{CHUNK} entrants the whole field is matched at once (the
    exact optimum); beyond, chunk by chunk in rank order.
    """
    balance, met = _history(names, games)
    order = sorted(names, key=lambda n: (-score[n], n))
    rank = {n: i for i, n in enumerate(order)}
    if len(order) <= 2 * CHUNK:
        return _matchChunk(order, balance, met, score, rank)[0]
    pairs: List[Tuple[str, str]] = []
    rest = list(order)
    while rest:
        size = CHUNK
        left: List[str]
        for growth in range(MAX_GROWTH + 1):
            if len(rest) - size < CHUNK:
                chunk, left = rest, []
            else:
                chunk, left = _colourChunk(rest, size, balance)
            found, clean = _matchChunk(chunk, balance, met, score, rank)
            if clean or not left:
                break
            size += CHUNK // 2
        pairs.extend(found)
        rest = left
    return pairs


def _colourChunk(order: Sequence[str], size: int,
                 balance: Mapping[str, int]) -> \
        Tuple[List[str], List[str]]:
    """
    The first C{size} of C{order} (an even count), with entrants taken
    from further down in place of the last ones until the chunk's colour
    preferences can all be kept (as many wanting seat 0 as seat 1, the
    indifferent making up the difference); and the rest, in order.
    """
    chunk = list(order[:size])
    rest = list(order[size:])

    def excess(members: Sequence[str]) -> int:
        plus = sum(1 for n in members if balance[n] > 0)
        minus = sum(1 for n in members if balance[n] < 0)
        zero = len(members) - plus - minus
        if plus > minus + zero:
            return 1
        if minus > plus + zero:
            return -1
        return 0

    while excess(chunk):
        sign = excess(chunk)
        # A floater from below with the colour the chunk lacks, in place
        # of the chunk's lowest-ranked entrant with the colour in excess.
        floater = next((n for n in rest if balance[n] * sign <= 0), None)
        out = next((n for n in reversed(chunk) if balance[n] * sign > 0),
                   None)
        if floater is None or out is None:
            break
        rest.remove(floater)
        chunk.remove(out)
        chunk.append(floater)
        rest.insert(0, out)
    return chunk, rest


def _matchChunk(order: Sequence[str], balance: Mapping[str, int],
                met: Mapping[str, Set[str]], score: Mapping[str, float],
                rank: Mapping[str, int]) -> \
        Tuple[List[Tuple[str, str]], bool]:
    """
    The best pairing of C{order} (entrants in rank order, an even
    count), and whether it has no rematch and keeps every colour
    balance within one.
    """
    spread = len(order) + 1
    scores = [score[n] for n in order] or [0.0]
    maxGap = int(round((max(scores) - min(scores)) * 2))
    # Lexicographic integer weights (networkx's matching stays exact):
    # each unit outweighs the sum over the round of every lesser one.
    preferenceUnit = spread * spread
    scoreUnit = preferenceUnit * spread
    colourUnit = scoreUnit * spread * (maxGap + 1)

    def colourKept(a: str, b: str) -> bool:
        first, second = _seatOrder(a, b, balance, rank)
        return max(abs(balance[first] + 1), abs(balance[second] - 1)) <= 1

    def weight(a: str, b: str) -> int:
        samePreference = balance[a] * balance[b] > 0
        scoreGap = int(round(abs(score[a] - score[b]) * 2))
        rankGap = abs(rank[a] - rank[b])
        return (colourUnit * (spread + colourKept(a, b))
                - scoreUnit * scoreGap - preferenceUnit * samePreference
                - rankGap)

    # Imported here: networkx costs every process that imports this
    # module (the hub, each tool) about 0.1 s, and only a Swiss round
    # of two needs it.
    import networkx
    matching: Set[Tuple[str, str]] = set()
    rematches = False
    for rematches in (False, True):
        graph: networkx.Graph[str] = networkx.Graph()
        graph.add_nodes_from(order)
        for a, b in itertools.combinations(order, 2):
            if rematches or b not in met[a]:
                graph.add_edge(a, b, weight=weight(a, b))
        matching = networkx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(matching) == len(order):
            break
    pairs = [_seatOrder(a, b, balance, rank) for a, b in matching]
    clean = not rematches and all(colourKept(a, b) for a, b in pairs)
    return sorted(pairs, key=lambda p: min(rank[p[0]], rank[p[1]])), clean


def _seatCounts(games: Iterable[Game]) -> Dict[str, Counter[int]]:
    counts: Dict[str, Counter[int]] = defaultdict(Counter)
    for game in games:
        if not game.bye:
            for seat, name in enumerate(game.seats):
                counts[name][seat] += 1
    return counts


def _scoreTables(names: Sequence[str], games: Sequence[Game],
                 score: Mapping[str, float], size: int) -> \
        List[Tuple[str, ...]]:
    """
    Entrants by score (then name), cut into tables of C{size}; seats
    rotated so that each entrant sits where it sat least.
    """
    order = sorted(names, key=lambda n: (-score[n], n))
    counts = _seatCounts(games)
    return [_rotate(order[i:i + size], counts)
            for i in range(0, len(order), size)]


def arenaPairings(free: Sequence[str], score: Mapping[str, float],
                  lastOpponents: Mapping[str, Set[str]],
                  tableSize: int = 2) -> List[Tuple[str, ...]]:
    """
    Tables for the entrants free now, at once: by score, nearest
    together, each table of C{tableSize}; an entrant whose nearest
    neighbour is its last opponent is paired with the next one when
    there is one.  Entrants left over wait for the next call.

    @param free: The entrants not playing now.
    @param score: Points so far.
    @param lastOpponents: Each entrant's opponents of its last game.
    @return: Seat orders (the lower-scored entrant in seat 0).
    """
    order = sorted(free, key=lambda n: (-score.get(n, 0.0), n))
    tables: List[Tuple[str, ...]] = []
    while len(order) >= tableSize:
        first = order.pop(0)
        picks = [n for n in order
                 if n not in lastOpponents.get(first, set())][:tableSize - 1]
        if len(picks) < tableSize - 1:
            picks = order[:tableSize - 1]
        for name in picks:
            order.remove(name)
        tables.append(tuple(reversed([first] + picks)))
    return tables


class ArenaTally:
    """
    What L{arenaPairings} needs of an arena's games, kept up to date as
    results come (L{add}) instead of counted again over every game at
    each pairing: each entrant's points, its opponents of its last game
    (the latest round's), and the games still to be played.

    @ivar score: points so far, by entrant (those with a finished game).
    @ivar lastOpponents: each entrant's opponents of its last game.
    @ivar pending: the C{(round, board)} of the games with no points.
    """

    def __init__(self, games: Iterable[Game]) -> None:
        self.score: Dict[str, float] = {}
        self.lastOpponents: Dict[str, Set[str]] = {}
        self.pending: Set[Tuple[int, int]] = set()
        self._lastRound: Dict[str, int] = {}
        for game in sorted(games, key=lambda g: g.round):
            self.add(game)

    def add(self, game: Game) -> None:
        """
        C{game} was paired (no points) or finished (its points), once.
        """
        key = (game.round, game.board)
        if game.points is None:
            self.pending.add(key)
            return
        self.pending.discard(key)
        for name, value in zip(game.seats, game.points):
            self.score[name] = self.score.get(name, 0.0) + value
            if game.round >= self._lastRound.get(name, 0):
                self._lastRound[name] = game.round
                self.lastOpponents[name] = set(game.seats) - {name}
