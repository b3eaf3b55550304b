"""
Game records, ratings and history: every game the hub's tables play is
stored when it ends (SQLite by default, PostgreSQL as an option), with its
players, outcome and complete action list; gomoku and checkers games rate
their players (openskill's Plackett-Luce model).

What each module of the package holds: docs/records.md, "The package".
"""
