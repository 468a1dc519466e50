"""The "knowledge" record kind and the payload shapes of its ops, registered with the journal's kinds registry.

Its one job: say what a "knowledge" record may hold, so `Journal.append` refuses any other payload at write time
and a load refuses it on read. It may not fold, validate caller input (the store does, once) or know the store.
"""

from __future__ import annotations

from ..journal import register_kind
from ..validation import ANY, Opt, op_shapes
from .fold import RECORD_KIND

__all__ = ["RECORD_KIND"]

# The payload shapes the fold reads: Journal.append refuses any other "knowledge" payload at write time.
_KEY_OP = {"id": str, "key": str, "clock": Opt(int), "by": Opt(ANY), "why": Opt(ANY)}
register_kind(
    RECORD_KIND,
    op_shapes(
        RECORD_KIND,
        {
            "add": {
                "kind": str,
                "body": ANY,
                "source": str,
                "key": str,
                "scope": Opt((dict, None)),
                "derived_from": Opt([str]),
                "supersedes": Opt((str, None)),
                "valid": Opt((None, lambda v: isinstance(v, list) and len(v) == 2)),
                "of": Opt((str, None)),
                "reconfirm_after": Opt((int, None)),
                "hypothesis": Opt(bool),
                "refused": Opt(str),
                "verdicts": Opt(list),
            },
            "retract": {"id": str},
            "resolve": {"key": str, "value": ANY, "question": Opt(str), "clock": Opt(int)},
            "promote": _KEY_OP,
            "use": {**_KEY_OP, "wrong": Opt(bool)},
            "confirm": {**_KEY_OP, "source": Opt(str), "rule": Opt(ANY)},
            "rollback": {**_KEY_OP, "flags": Opt([str])},
            "flag": {
                "id": str,
                "scope": Opt((dict, None)),
                "ids": Opt(([str], None)),
                "target_key": Opt((str, None)),
                "why": Opt(str),
            },
            "end_flag": {"flag": str, "why": Opt(ANY)},
            "tick": {"k": lambda k: isinstance(k, int) and not isinstance(k, bool) and k >= 1},
        },
    ),
)
