"""
C{python -m hub.bots URL [options]}: the network bot player of
L{hub.client.botplayer}.

An entry point, not a library module: nothing imports it, so it may
start the client layer above the strategies (see C{tests/test_layers}).
"""

import sys

from twisted.internet import task

from hub.client.botplayer import main

if __name__ == "__main__":
    task.react(main, sys.argv[1:])
