import hub.tables
