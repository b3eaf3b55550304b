"""
The client side of gamehub, without any pyglet: protocol clients on
L{hub.wire} (L{hub.client.net}), one state machine per game that mirrors
the server's position with L{hub.games} (L{hub.client.state} and the
C{state_*} modules), the auto-player (L{hub.client.autoplay}), the lobby
steps of a player that plays by itself (L{hub.client.lobbyflow}), the
network bot player (L{hub.client.botplayer}) and a whole client session
(L{hub.client.session}).

Both clients are built on it: the bot client C{python -m hub.bots}
(L{hub.client.botplayer}) and the desktop client C{client_pyglet}.
"""
