"""
Two costs of a game that issue 36 cut, each beside what it replaced, in
the same run and the same process:

  - a record's text at the game's end (C{hub.records.codec.columnsText}):
    the columns written by C{msgspec} (C{fastjson.encodePlain}) against
    the standard library's C{json.dumps}, for a 117-move checkers game (the
    length of C{bench/defaults.py}'s checkers games) and a 225-move gomoku
    draw;
  - a timed turn (C{hub.tables.base.Table.startClock}): the table's
    clock with its turn clock running (kept, its deadline moved) against
    a clock cancelled and made again (C{cancel} and C{callLater}), on the
    real reactor with 200 other timers pending, as 100 timed rooms have;
  - a rules object's moves after something read its C{__dict__} (as a
    copy by C{hub.games.state.copyState} does; the web face's feed made
    one of every live game until issue 36) against a fresh one's.

CPU time (C{time.process_time}), the best of C{--rounds}.

    python bench/game_end.py
    python bench/game_end.py --rounds 5 --json

Not a test: it prints figures.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from hub.records import codec  # noqa: E402
from hub.tables.actionlog import ActionLog  # noqa: E402

START = 1.7e9


def checkersPath(ply):
    return ((ply % 17 - 8, ply % 13 - 6), (ply % 15 - 7, ply % 11 - 5),
            (ply % 9 - 4, ply % 7 - 3))


def gomokuStone(ply):
    return (ply % 15, ply // 15)


def gameLog(moves, action):
    """
    The actions of a game of C{moves} plies, one every 10 ms.
    """
    log = ActionLog()
    for ply in range(moves):
        log.append(ply % 2, action(ply), ply % 7 == 0, START + ply * 0.01)
    return log


def stdlibColumnsText(kind, actions, startedAt):
    """
    What C{columnsText} wrote before: the whole object by C{json.dumps}.
    """
    times = [int((at - startedAt) * 1000 + 0.5) for at in actions.times]
    return json.dumps(
        {"t": times, "seat": actions.seatList(), "action": actions.moves,
         "bot": actions.botPlies(), "events": []}, separators=(",", ":"))


def best(rounds, repeat, f):
    """
    The least CPU time of C{f} in microseconds, over C{rounds} rounds of
    C{repeat} calls.
    """
    times = []
    for _ in range(rounds):
        began = time.process_time()
        for _ in range(repeat):
            f()
        times.append((time.process_time() - began) / repeat * 1e6)
    return min(times)


def records(rounds):
    figures = {}
    for kind, moves, action in (("checkers", 117, checkersPath),
                                ("gomoku", 225, gomokuStone)):
        log = gameLog(moves, action)
        ours = codec.columnsText(kind, log, [], START)
        theirs = stdlibColumnsText(kind, log, START)
        if json.loads(ours) != json.loads(theirs):
            raise SystemExit("the two texts differ in value")
        figures[kind] = {
            "moves": moves,
            "stdlib_us": round(best(rounds, 2000, lambda: stdlibColumnsText(
                kind, log, START)), 1),
            "msgspec_us": round(best(rounds, 2000, lambda: codec.columnsText(
                kind, log, [], START)), 1)}
    return figures


def turnClock(rounds):
    from twisted.internet import reactor

    from hub.clock import TrackedClock
    from hub.tables import events
    from hub.tables.gomoku import GomokuTable

    clock = TrackedClock(reactor)

    def ring():
        pass

    others = [clock.callLater(30 + i * 0.1, ring) for i in range(200)]
    box = [clock.callLater(30, ring)]

    def again():
        box[0].cancel()
        box[0] = clock.callLater(30, ring)

    table = GomokuTable("t", [events.Seat(0, "a", 1), events.Seat(1, "b", 2)],
                        clock)
    table.startClock(30, ring)

    def kept():
        table.startClock(30, ring)

    figures = {}
    for name, f in (("cancel_callLater_us", again), ("startClock_us", kept)):
        def turns(f=f):
            for _ in range(100):
                f()
            # The reactor's own pass over its timers, as between reads.
            reactor.runUntilCurrent()
        figures[name] = round(best(rounds, 200, turns) / 100, 2)
    table.stopClock()
    for call in others + box:
        if call.active():
            call.cancel()
    return figures


def rulesAfterDict(rounds):
    """
    A gomoku rules object's moves (200 stones, C{isLegal} and C{apply})
    when nothing read its C{__dict__}, and when something did (as a copy
    of it by C{hub.games.state.copyState} does): CPython 3.11 keeps the
    fields of an object whose C{__dict__} was read in that dict, slower
    to read.
    """
    from hub.games.gomoku import GomokuGame

    stones = [((i * 7) % 15, (i * 11 + i // 15) % 15) for i in range(200)]

    def play(touch):
        game = GomokuGame()
        if touch:
            game.__dict__
        for stone in stones:
            seat = game.currentSeat
            if not game.isOver and game.isLegal(*stone):
                game.apply(seat, stone)

    return {"fresh_us": round(best(rounds, 300, lambda: play(False)), 1),
            "dict_read_us": round(best(rounds, 300, lambda: play(True)), 1)}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    results = {"records": records(args.rounds),
               "turn_clock": turnClock(args.rounds),
               "rules_after_dict": rulesAfterDict(args.rounds)}
    if args.json:
        print(json.dumps(results, sort_keys=True))
        return 0
    print("a record's text at the game's end (CPU, best of %d):"
          % (args.rounds,))
    for kind, row in results["records"].items():
        print("  %-8s %3d moves: json.dumps %6.1f us, msgspec columns "
              "%6.1f us (%.2f us a move saved)" % (
                  kind, row["moves"], row["stdlib_us"], row["msgspec_us"],
                  (row["stdlib_us"] - row["msgspec_us"]) / row["moves"]))
    clock = results["turn_clock"]
    print("a timed turn's clock: cancel and callLater %.2f us, the "
          "table's startClock with its clock running %.2f us" % (
              clock["cancel_callLater_us"], clock["startClock_us"]))
    rules = results["rules_after_dict"]
    print("200 gomoku stones: a fresh rules object %.1f us, one whose "
          "__dict__ was read %.1f us (x%.2f)" % (
              rules["fresh_us"], rules["dict_read_us"],
              rules["dict_read_us"] / rules["fresh_us"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
