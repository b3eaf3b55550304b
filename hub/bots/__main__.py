"""
C{python -m hub.bots URL [options]}: see L{hub.bots.client}.
"""

import sys

from twisted.internet import task

from hub.bots.client import main

if __name__ == "__main__":
    task.react(main, sys.argv[1:])
