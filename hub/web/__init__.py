"""
The hub on the web (C{--web-port}): the live lobby, spectating every game
through Server-Sent Events, replays, players, leaderboards, a JSON API and
C{/metrics}.  Read-only but for browser play (C{/ws}), which plays at
the tables as any client does.

    views.py    JSON views of the rules objects and of actions (pure)
    stream.py   one Server-Sent Events stream, bounded, as a push producer
    live.py     the spectators' feed: a table listener keeping live games
    api.py      the JSON resources
    pages.py    the HTML pages (twisted.web.template)
    site.py     the resource tree and the L{twisted.web.server.Site}
    ws.py       C{/ws}, the WebSocket of browser play
    play/       browser play: its messages, its core, a module per game
    static/     the pages' JavaScript and CSS, plain files
"""

from __future__ import annotations
