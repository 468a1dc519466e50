"""The knowledge store: what a system learned, and from whom (see README: "The knowledge store")."""

from .gates import Candidate, ConsistencyGate, SourceGate, Verdict, WriteGate
from .items import KINDS, RANK, RECONFIRM_DEFAULTS, SOURCES, STATUSES
from .staleness import Flag
from .store import KnowledgeStore, Verification

__all__ = ["KnowledgeStore", "Verification", "WriteGate", "SourceGate", "ConsistencyGate", "Verdict", "Candidate",
           "Flag", "KINDS", "SOURCES", "RANK", "STATUSES", "RECONFIRM_DEFAULTS"]
