"""τ²-bench telecom: the dual-control domain (an agent's CRM and a user's phone), its environment and study.

Modules: :mod:`.model` (the records of both databases), :mod:`.crm` (the agent's 13 tools), :mod:`.phone` (the
user's 30 tools), :mod:`.env` (dispatch, sync, initialisation, assertions, reward), :mod:`.data` (finding and
loading the shared data).
"""
