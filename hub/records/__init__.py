"""
Game records, ratings and history: every game the hub's tables play is
stored when it ends (SQLite by default, PostgreSQL as an option), with its
players, outcome and complete action list; gomoku and checkers games rate
their players (openskill's Plackett-Luce model).

    db          the --db URL, dialects, migrations, the adbapi Database
    record      GameRecord (one game) and RecordBuilder (from table events)
    codec       the JSON form of actions and events, per game kind
    ratings     the openskill model and the ordinal leaderboards rank by
    store       writing a record and its ratings in one transaction
    recorder    the table listener and its bounded, retrying write queue
    query       Records: the Deferred-returning query API
    service     the records as a service of the hub
    notation    moves in a readable notation
    export      the JSON lines form of a record
    cli         python -m hub.records
"""
