-- gamehub records, schema version 5: tournament events (hub.tournaments).
-- state: created, running, paused, finished.  Seats and points are JSON
-- lists in seat order; a bye is a pairing of one seat with a negative
-- board.  Times are seconds since the epoch (UTC).

CREATE TABLE tournaments (
    id @ID@,
    name TEXT NOT NULL,
    kind VARCHAR(16) NOT NULL,
    format VARCHAR(16) NOT NULL,
    rounds INTEGER,
    minutes DOUBLE PRECISION,
    table_size INTEGER NOT NULL,
    turn_seconds DOUBLE PRECISION,
    state VARCHAR(16) NOT NULL,
    current_round INTEGER NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    started_at DOUBLE PRECISION,
    ends_at DOUBLE PRECISION,
    paused_at DOUBLE PRECISION,
    finished_at DOUBLE PRECISION
);

CREATE TABLE tournament_entrants (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id)
        ON DELETE CASCADE,
    name TEXT NOT NULL,
    entry INTEGER NOT NULL,
    command TEXT,
    withdrawn INTEGER NOT NULL,
    entered_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tournament_id, name)
);

CREATE TABLE tournament_rounds (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id)
        ON DELETE CASCADE,
    round INTEGER NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    finished_at DOUBLE PRECISION,
    PRIMARY KEY (tournament_id, round)
);

CREATE TABLE tournament_pairings (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id)
        ON DELETE CASCADE,
    round INTEGER NOT NULL,
    board INTEGER NOT NULL,
    seats TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tournament_id, round, board)
);

CREATE TABLE tournament_results (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id)
        ON DELETE CASCADE,
    round INTEGER NOT NULL,
    board INTEGER NOT NULL,
    points TEXT NOT NULL,
    reason VARCHAR(16) NOT NULL,
    seats TEXT NOT NULL,
    ended_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tournament_id, round, board)
);
