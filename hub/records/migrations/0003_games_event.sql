-- gamehub records, schema version 3: a tournament game names its event
-- (hub.tournaments); NULL for every other game.  Version 2 is left to
-- the accounts (hub.accounts), which were written at the same time.

ALTER TABLE games ADD COLUMN event BIGINT;

CREATE INDEX games_event ON games (event);
