"""
Finding the C{--splendor-seed} of
L{tests.web.test_play_browser.PlayPageTests.test_wholeSplendorGameByClicking}:
its clicks played offline against the rules (L{hub.games.splendor}) and
the hub's bot, as the hub would deal and seat with that seed, and ask
its bot (L{WorkerThinker}).  A seed is good when the browser's player both
gives back tokens and chooses between nobles, and the game ends.

Run C{python -m tests.web.splendorseeds FIRST LAST} after a change to the
rules, the bot, how the bot is asked, the seating or the test's clicks
(the clicks here mirror the test's C{splendorTurn} and C{pickGems} and
the page's offers, C{hub/web/static/playsplendor.js}).
"""

import json
import random
import sys

from twisted.internet import defer
from twisted.internet.task import Clock

from hub.games import splendor as rules
from hub.games.codec import actionFromJSON, stateToJSON
from hub.tables.seatpilot import SeatPilot
from hub.thinkers.worker import choose

#: The page's order of the gem buttons.
TOKENS = rules.GEMS + (rules.GOLDEN,)
#: The hub's default --bot-level, which the table's bots play at.
BOT_LEVEL = 2


def holds(action, pick):
    """
    Whether the gems of C{action} hold every token of C{pick}.
    """
    counts = dict(action.gems)
    return all(pick.get(g, 0) <= counts.get(g, 0) for g in TOKENS)


def same(action, pick):
    """
    Whether C{pick} is exactly the gems of C{action}.
    """
    return holds(action, pick) and all(
        pick.get(g, 0) == n for g, n in action.gems)


def pickGems(actions):
    """
    The action the test's C{pickGems} plays: a new gem's button first,
    until the pick is one of C{actions}.
    """
    pick = {}
    gems = [g for g in TOKENS
            if any(pair[0] == g for a in actions for pair in a.gems)]
    while not any(same(a, pick) for a in actions):
        def offered(gem):
            more = dict(pick, **{gem: pick.get(gem, 0) + 1})
            return any(holds(a, more) for a in actions)
        enabled = [g for g in gems if offered(g)]
        fresh = [g for g in enabled if not pick.get(g)]
        gem = (fresh or enabled)[0]
        pick[gem] = pick.get(gem, 0) + 1
    return [a for a in actions if same(a, pick)][0]


def clicked(game, seat, legal, done):
    """
    The action the test's C{splendorTurn} plays, noted in C{done}.
    """
    kind = legal[0].kind
    if kind == rules.GET_NOBLE:
        done.append("noble")
        return legal[0]
    if kind == rules.DISCARD_GEMS:
        done.append("discard")
        return pickGems(legal)
    takes = [a for a in legal if a.kind == rules.GET_GEMS]
    buys = [a for a in legal if a.kind == rules.BUY_CARD]
    if "discard" not in done and takes:
        done.append("take")
        return pickGems(takes)
    # The hand, then the board as drawn: level 3's row first.
    cards = list(game.players[seat].reserved)
    for level in (2, 1, 0):
        cards.extend(card for card in game.board[level] if card)
    for card in cards:
        bought = [a for a in buys if a.card == card]
        if bought:
            done.append("buy")
            return bought[0]
    if takes:
        done.append("take")
        return pickGems(takes)
    for level in (2, 1, 0):
        for card in game.board[level]:
            if card and rules.Action(rules.FOLD_CARD, card) in legal:
                done.append("reserve")
                return rules.Action(rules.FOLD_CARD, card)
        blind = rules.Action(rules.FOLD_CARD_UNKNOWN,
                             rules.UNKNOWN_CARD_BASE + level + 1)
        if blind in legal:
            done.append("reserve")
            return blind
    raise RuntimeError("the test would find nothing to click")


class WorkerThinker:
    """
    An L{hub.ihub.IThinker} that answers at once as a worker of the hub's
    pool does (L{hub.thinkers.worker.choose}: a bot made for the
    question, the position through the codec), without a time limit
    (level 2 has none).
    """

    def think(self, kind, level, seed, state, seat):
        position = json.dumps(stateToJSON(kind, state),
                              separators=(",", ":"))
        text = choose(kind, level, seed, seat, position, lambda: False)
        return defer.succeed(actionFromJSON(kind, json.loads(text)))


def play(seed):
    """
    The game of C{seed}: the browser's player (who joined first) and one
    bot, seated and dealt as L{hub.tables.splendor.SplendorStartPolicy}
    does with C{random.Random(seed)}, the bot's seat played by a
    L{SeatPilot} as the room bot's takeover has it (seeded with its
    seat).

    @return: what the player did, and the game.
    """
    rng = random.Random(seed)
    members = ["browser", "bot"]
    rng.shuffle(members)
    game = rules.SplendorGame(2, random.Random(rng.getrandbits(64)))
    mine = members.index("browser")
    clock = Clock()
    pilot = SeatPilot(clock, WorkerThinker(), "splendor", BOT_LEVEL,
                      seed=1 - mine, delay=0)
    done = []
    while not game.isOver:
        seat = game.currentSeat
        if seat == mine:
            action = clicked(game, seat, game.legalActions(seat), done)
        else:
            chosen = []
            pilot.turn(game, seat, chosen.append)
            clock.advance(0)
            [action] = chosen
        game.apply(seat, action)
    return done, game


def main(first, last):
    for seed in range(first, last):
        done, game = play(seed)
        if "discard" in done and "noble" in done:
            print(seed, "turns:", len(done))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
