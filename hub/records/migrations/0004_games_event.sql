-- gamehub records, schema version 4: a tournament game names its event
-- (hub.tournaments); NULL for every other game.

ALTER TABLE games ADD COLUMN event BIGINT;

CREATE INDEX games_event ON games (event);
