-- gamehub records, schema version 1: games, their seats and events, and
-- the ratings.  "@ID@" is the dialect's auto-numbered primary key; times
-- are seconds since the epoch (UTC); flags are 0 or 1; JSON is text.

CREATE TABLE games (
    id @ID@,
    kind VARCHAR(16) NOT NULL,
    table_name TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    ended_at DOUBLE PRECISION NOT NULL,
    reason VARCHAR(16) NOT NULL,
    winner INTEGER,
    ranking TEXT NOT NULL,
    seat_count INTEGER NOT NULL,
    action_count INTEGER NOT NULL,
    rated INTEGER NOT NULL
);

CREATE INDEX games_ended ON games (ended_at);

CREATE TABLE game_seats (
    game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    kind VARCHAR(16) NOT NULL,
    name TEXT NOT NULL,
    player_id BIGINT,
    role TEXT,
    bot_client INTEGER NOT NULL,
    takeover_ply INTEGER,
    takeover_level INTEGER,
    place INTEGER,
    mu_before DOUBLE PRECISION,
    sigma_before DOUBLE PRECISION,
    mu_after DOUBLE PRECISION,
    sigma_after DOUBLE PRECISION,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX game_seats_player ON game_seats (kind, name, game_id);

CREATE TABLE game_events (
    game_id BIGINT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    position TEXT NOT NULL,
    events TEXT NOT NULL
);

CREATE TABLE ratings (
    kind VARCHAR(16) NOT NULL,
    name TEXT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    ordinal DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (kind, name)
);

CREATE INDEX ratings_board ON ratings (kind, ordinal);
