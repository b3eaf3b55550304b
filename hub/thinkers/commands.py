"""
The AMP command between the hub and a bot worker (L{hub.thinkers}): a
position in the game's own JSON form (L{hub.games.codec}) and the seat to
act, an action back.  Nothing is pickled.
"""

from twisted.protocols import amp


class BadQuestion(Exception):
    """
    The worker cannot read the question (an unknown kind or level, a
    state that is no state), or the seat has nothing to play.
    """


class ChooseAction(amp.Command):
    """
    What the bot of C{kind} at C{level}, seeded with C{seed}, plays for
    C{seat} in C{position} (the JSON text of
    L{hub.games.codec.stateToJSON}), searching for at most C{budget}
    seconds.  C{request} names the question (the hub's, for its own
    bookkeeping).  The answer is the JSON text of
    L{hub.games.codec.actionToJSON}, and whether the time ran out
    (C{cut}: the search played its best so far).
    """

    arguments = [(b"request", amp.Integer()),
                 (b"kind", amp.Unicode()),
                 (b"level", amp.Integer()),
                 (b"seed", amp.Integer()),
                 (b"seat", amp.Integer()),
                 (b"position", amp.Unicode()),
                 (b"budget", amp.Float())]
    response = [(b"action", amp.Unicode()),
                (b"cut", amp.Boolean())]
    errors = {BadQuestion: b"BAD_QUESTION"}


class Hello(amp.Command):
    """
    Is the worker up?  (The pool asks each new worker once.)
    """

    response = [(b"pid", amp.Integer())]


class Shutdown(amp.Command):
    """
    Exit now: what ampoule's pool sends a worker it stops (the same name
    and answer as C{ampoule.commands.Shutdown}, which a worker does not
    import: the ampoule package brings its whole pool along).
    """

    commandName = b"Shutdown"
    responseType = amp.QuitBox
