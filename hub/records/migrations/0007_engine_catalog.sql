-- gamehub records, schema version 7: the engine catalog (python -m
-- hub.tournaments engine register): the engines the operator lets events
-- run, each with its command line (a JSON list), its own folder, its
-- protocol and its limits.  An engine entrant names its catalog entry
-- (tournament_entrants.engine) and holds no command line any more: those
-- entered before this version move into the catalog under their
-- entrants' names (python -m hub.tournaments engine list shows them).

CREATE TABLE engine_catalog (
    name TEXT PRIMARY KEY,
    command TEXT NOT NULL,
    folder TEXT,
    protocol VARCHAR(16) NOT NULL,
    cpu_seconds INTEGER NOT NULL,
    memory_bytes BIGINT NOT NULL,
    registered_at DOUBLE PRECISION NOT NULL
);

ALTER TABLE tournament_entrants ADD COLUMN engine TEXT;

INSERT INTO engine_catalog (name, command, folder, protocol, cpu_seconds,
                            memory_bytes, registered_at)
SELECT name, MAX(command), NULL, 'tcp', 600, 1073741824, MAX(entered_at)
FROM tournament_entrants WHERE command IS NOT NULL GROUP BY name;

UPDATE tournament_entrants SET engine = name, command = NULL
WHERE command IS NOT NULL;
