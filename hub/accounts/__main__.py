"""
C{python -m hub.accounts}: see L{hub.accounts.cli}.
"""

from hub.accounts.cli import main

if __name__ == "__main__":
    main()
