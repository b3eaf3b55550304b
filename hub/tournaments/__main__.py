"""
C{python -m hub.tournaments}: see L{hub.tournaments.cli}.
"""

from hub.tournaments.cli import main

if __name__ == "__main__":
    main()
