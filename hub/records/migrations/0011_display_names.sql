-- gamehub records, schema version 11: display names (hub.accounts).  An
-- account may have a free display name (NULL for none), shown on the web
-- face and in the desktop client beside its name, never by the legacy
-- protocols; display_skeletons holds the confusable skeletons of every
-- display name (as is, in lower and in upper case, like
-- account_skeletons), one account's each, so that no two accounts' display
-- names look alike (its primary key) and a new one is checked with one
-- indexed read.  Made again with the names' skeletons when ICU's version
-- changes (hub.accounts.store.fillSkeletons).

ALTER TABLE accounts ADD COLUMN display_name VARCHAR(24);

CREATE TABLE display_skeletons (
    skeleton TEXT NOT NULL PRIMARY KEY,
    name_key VARCHAR(20) NOT NULL
);

CREATE INDEX display_skeletons_name ON display_skeletons (name_key)
