-- gamehub records, schema version 9: names at scale (hub.accounts).  The
-- confusable skeletons of the accounts' names, indexed (a guest's name is
-- checked against them with one read); a log of the changes the name
-- check must see (a key, a ban, a role, an account or an address ban
-- made), read by every hub from where it last read instead of every
-- account; and an index of the bans.  The skeletons are filled by the
-- hub and the CLI from the names (hub.accounts.store.fillSkeletons).

CREATE TABLE account_skeletons (
    skeleton VARCHAR(160) NOT NULL,
    name_key VARCHAR(20) NOT NULL,
    PRIMARY KEY (skeleton, name_key)
);

CREATE INDEX account_skeletons_name ON account_skeletons (name_key);

CREATE TABLE account_changes (
    seq @ID@,
    kind VARCHAR(16) NOT NULL,
    target VARCHAR(64) NOT NULL,
    at DOUBLE PRECISION NOT NULL
);

CREATE INDEX account_changes_at ON account_changes (at);

CREATE INDEX accounts_banned ON accounts (banned_until);

CREATE INDEX address_bans_until ON address_bans (banned_until)
