"""
C{python -m hub.records}: see L{hub.records.cli}.
"""

from hub.records.cli import main

if __name__ == "__main__":
    main()
