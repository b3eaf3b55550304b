"""
Where the hub's bots think: never on the reactor thread.

  - L{hub.thinkers.pool}: the hub's L{hub.ihub.IThinker}, a pool of
    worker processes (ampoule, over AMP) with a bounded queue and a
    deadline per move;
  - L{hub.thinkers.worker}: what runs in a worker process: the position
    in (L{hub.games.codec}), the strategy of L{hub.bots}, the action out;
  - L{hub.thinkers.commands}: the AMP command between the two;
  - L{hub.thinkers.inline}: an L{hub.ihub.IThinker} that thinks in the
    caller's thread, for tests and one-user programs;
  - L{hub.thinkers.shares}: how many bots one address or account may
    have playing at once.

docs/bots.md says what runs where, and the rules.
"""
