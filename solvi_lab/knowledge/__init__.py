"""The knowledge store: what a system learned, and from whom (see README: "The knowledge store")."""

from .from_scratch import Verification
from .gates import Candidate, ConsistencyGate, SourceGate, Verdict, WriteGate
from .items import KINDS, RANK, RECONFIRM_DEFAULTS, SOURCES, STATUSES, ItemSource, ItemStatus
from .staleness import Flag
from .store import KnowledgeStore

__all__ = [
    "KnowledgeStore",
    "Verification",
    "WriteGate",
    "SourceGate",
    "ConsistencyGate",
    "Verdict",
    "Candidate",
    "Flag",
    "KINDS",
    "SOURCES",
    "RANK",
    "STATUSES",
    "ItemSource",
    "ItemStatus",
    "RECONFIRM_DEFAULTS",
]

# The specification imports every piece from one place (solvi.core.knowledge); these names resolve lazily to the
# modules that own them, so the store does not import its consumers.
_LAZY = {
    "ConservativeActionModel": "actions",
    "Vocabulary": "actions",
    "Protect": "risk",
    "RiskBudget": "risk",
    "LearnedGate": "risk",
    "Agenda": "agenda",
    "FailureMemory": "failures",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"solvi_lab.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'solvi_lab.knowledge' has no attribute {name!r}")
