import hub.client
