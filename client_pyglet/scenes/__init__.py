"""
The client's screens: lobby and game scene of each protocol.
"""

from hub.client import state as S


def sceneFor(game, phase):
    """
    The scene class that shows C{phase} of C{game}.
    """
    from client_pyglet.scenes.base import WaitScene
    if phase in (S.CONNECTING, S.CLOSED):
        return WaitScene
    if game == "gomoku":
        from client_pyglet.scenes import gomoku as m
    elif game == "checkers":
        from client_pyglet.scenes import checkers as m
    else:
        from client_pyglet.scenes import splendor as m
    return m.SCENES.get(phase, WaitScene)
