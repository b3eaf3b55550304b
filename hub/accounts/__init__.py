"""
Owned names: accounts, play keys, guests, roles, bans and the audit, in
the records database (L{hub.records.db}, migration 0002).

  - L{hub.accounts.names}: name rules, play keys, the keyed name forms;
  - L{hub.accounts.model}: L{Accounts}, the Python API (Deferreds);
  - L{hub.accounts.check}: the name check the protocol adapters call
    when a player gives a name (L{NameService});
  - L{hub.accounts.cli}: C{python -m hub.accounts}.
"""
