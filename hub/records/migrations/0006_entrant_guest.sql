-- gamehub records, schema version 6: a tournament entrant whose name is
-- no account's (entered with --guest, or an engine under a free name)
-- is marked, so that the event's pages mark it as a guest.

ALTER TABLE tournament_entrants ADD COLUMN guest INTEGER NOT NULL DEFAULT 0;
