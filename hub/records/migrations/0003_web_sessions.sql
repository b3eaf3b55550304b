-- gamehub records, schema version 3: the web face's login sessions, the
-- admin API's tokens and the invite codes of --registration invite
-- (hub.accounts.websessions).  Each secret is kept only as its SHA-256.

CREATE TABLE web_sessions (
    id_hash VARCHAR(64) PRIMARY KEY,
    name_key VARCHAR(20) NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    seen_at DOUBLE PRECISION NOT NULL
);

CREATE TABLE api_tokens (
    token_hash VARCHAR(64) PRIMARY KEY,
    name_key VARCHAR(20) NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);

CREATE TABLE invites (
    code_hash VARCHAR(64) PRIMARY KEY,
    created_by TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    used_by VARCHAR(20),
    used_at DOUBLE PRECISION
)
