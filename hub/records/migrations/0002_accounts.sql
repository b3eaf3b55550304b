-- gamehub records, schema version 2: accounts (owned names, hub.accounts),
-- bans of addresses, the audit of moderation, server settings (the play
-- keys' HMAC secret), and a guest flag on recorded seats and ratings.

CREATE TABLE accounts (
    id @ID@,
    name VARCHAR(20) NOT NULL,
    name_key VARCHAR(20) NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    key_hash VARCHAR(64) NOT NULL,
    role VARCHAR(16) NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    last_seen DOUBLE PRECISION,
    banned_until DOUBLE PRECISION,
    ban_reason TEXT
);

CREATE TABLE address_bans (
    cidr VARCHAR(64) PRIMARY KEY,
    banned_until DOUBLE PRECISION NOT NULL,
    reason TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);

CREATE TABLE audit (
    id @ID@,
    at DOUBLE PRECISION NOT NULL,
    actor TEXT NOT NULL,
    action VARCHAR(32) NOT NULL,
    target TEXT NOT NULL,
    reason TEXT NOT NULL
);

CREATE TABLE settings (
    name VARCHAR(64) PRIMARY KEY,
    value TEXT NOT NULL
);

ALTER TABLE game_seats ADD COLUMN guest INTEGER NOT NULL DEFAULT 0;

ALTER TABLE ratings ADD COLUMN guest INTEGER NOT NULL DEFAULT 0
