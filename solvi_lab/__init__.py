"""solvi_lab: what an agent knows, and from whom — as plain, journaled, retractable data.

>>> from solvi_lab import KnowledgeStore
>>> ks = KnowledgeStore()
>>> vip = ks.add("fact", {"s": "c17", "r": "tier", "o": "vip"}, source="person", by="crm")
>>> ks.snapshot(about="c17")["facts"][0]["o"]
'vip'
"""

from .actions import ConservativeActionModel, Vocabulary
from .agenda import Agenda
from .decisions import DecisionLog
from .episodes import Chooser, Episode, EpisodeView, LongMemory
from .errors import (
    BadInput,
    BadParameter,
    CorruptJournal,
    DataMissing,
    JournalLocked,
    SolviLabError,
    UnknownId,
    WriteRefused,
)
from .evidence import LearnerModel
from .failures import FailureMemory
from .journal import Journal
from .knowledge import ConsistencyGate, KnowledgeStore, SourceGate, Verdict, WriteGate
from .prediction import Prediction
from .risk import LearnedGate, Protect, RiskBudget, RiskDecision
from .worldmap import WorldMap

__version__ = "0.1.0"

__all__ = [
    "KnowledgeStore",
    "WriteGate",
    "SourceGate",
    "ConsistencyGate",
    "Verdict",
    "Journal",
    "DecisionLog",
    "ConservativeActionModel",
    "Vocabulary",
    "Prediction",
    "Protect",
    "RiskBudget",
    "LearnedGate",
    "RiskDecision",
    "Agenda",
    "FailureMemory",
    "Episode",
    "EpisodeView",
    "Chooser",
    "LongMemory",
    "WorldMap",
    "LearnerModel",
    "SolviLabError",
    "BadInput",
    "BadParameter",
    "UnknownId",
    "CorruptJournal",
    "JournalLocked",
    "WriteRefused",
    "DataMissing",
]
