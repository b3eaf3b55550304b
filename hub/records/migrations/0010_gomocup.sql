-- gamehub records, schema version 10: Gomocup brains in events.  An event
-- has a Gomocup time control (turn_ms a turn, match_ms a game's bank, in
-- milliseconds, NULL for none) and may let its engines ponder (1) or stop
-- them between their turns (0, the default); an engine entrant keeps what
-- its brain answered to ABOUT (about: a JSON object of its key="value"
-- pairs, NULL until it played); a gomoku event may have a list of
-- openings (openings: a JSON list of openings, each a list of [x, y]
-- stones in the order played; NULL for none).

ALTER TABLE tournaments ADD COLUMN turn_ms INTEGER;
ALTER TABLE tournaments ADD COLUMN match_ms INTEGER;
ALTER TABLE tournaments ADD COLUMN pondering INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournament_entrants ADD COLUMN about TEXT;
ALTER TABLE tournaments ADD COLUMN openings TEXT;
