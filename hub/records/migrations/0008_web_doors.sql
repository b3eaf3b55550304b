-- gamehub records, schema version 8: the web face's doors
-- (hub.accounts.websessions, hub.web.door).
--   - admin API tokens expire, have a name and a last use; a token made
--     before this version expires 30 days after it was made;
--   - an account may keep its other web sessions when it logs in again
--     ("keep me logged in elsewhere");
--   - the audit keeps the acting client's address (web and API actions);
--   - the sessions of an account are found by its name (ended together);
--     a ban ends them but keeps them, marked, until they expire, so that
--     the WebSocket can still say "banned" to their cookie.

ALTER TABLE api_tokens ADD COLUMN label TEXT NOT NULL DEFAULT '';

ALTER TABLE api_tokens ADD COLUMN expires_at DOUBLE PRECISION;

ALTER TABLE api_tokens ADD COLUMN last_used_at DOUBLE PRECISION;

UPDATE api_tokens SET expires_at = created_at + 2592000;

ALTER TABLE accounts ADD COLUMN keep_sessions INTEGER NOT NULL DEFAULT 0;

ALTER TABLE audit ADD COLUMN address VARCHAR(64);

ALTER TABLE web_sessions ADD COLUMN banned INTEGER NOT NULL DEFAULT 0;

CREATE INDEX web_sessions_name_key ON web_sessions (name_key);

CREATE INDEX api_tokens_name_key ON api_tokens (name_key)
