"""The one fingerprint rule (solvi_lab/codehash.py) as the agenda and the action model see it."""

from __future__ import annotations

import types

from solvi_lab.actions import Vocabulary
from solvi_lab.agenda import Agenda, code_fingerprint
from solvi_lab.codehash import MAX_DEPTH
from solvi_lab.knowledge import KnowledgeStore


def _module(helper_body: str) -> types.ModuleType:
    """A module whose `check` calls a module-level helper; editing the helper is editing the module's source."""
    mod = types.ModuleType("fake_rules")
    exec(f"def helper(s):\n    return {helper_body}\n\ndef check(s):\n    return helper(s)\n", mod.__dict__)
    return mod


def test_editing_a_helper_changes_the_fingerprint_of_its_caller():
    old, same, new = _module("s['n'] > 1"), _module("s['n'] > 1"), _module("s['n'] > 2")
    assert code_fingerprint(old.check) == code_fingerprint(same.check)
    assert code_fingerprint(old.check) != code_fingerprint(new.check)
    assert len(code_fingerprint(old.check)) == 64


def test_editing_a_helper_makes_an_agenda_rule_supersede_its_old_version():
    ks = KnowledgeStore()
    ag = Agenda(ks)
    ag.goal("big", done=_module("s['n'] > 1").check)
    first = ag.goals()["big"]["item"]
    ag.goal("big", done=_module("s['n'] > 1").check)  # same code, a new function object: the same item
    assert ag.goals()["big"]["item"] == first
    ag.goal("big", done=_module("s['n'] > 2").check)  # only the helper changed
    second = ag.goals()["big"]["item"]
    assert second != first
    assert ks.item(second)["supersedes"] == first and ks.item(first)["status"] == "refuted"


def test_editing_a_helper_changes_a_vocabulary_fingerprint():
    a = Vocabulary({"big": _module("s['n'] > 1").check})
    b = Vocabulary({"big": _module("s['n'] > 1").check})
    c = Vocabulary({"big": _module("s['n'] > 2").check})
    assert a.fingerprint == b.fingerprint != c.fingerprint


def test_cycles_and_deep_chains_terminate():
    mod = types.ModuleType("cyclic")
    src = "def even(n):\n    return n == 0 or odd(n - 1)\n\ndef odd(n):\n    return n != 0 and even(n - 1)\n"
    exec(src, mod.__dict__)
    assert code_fingerprint(mod.even) == code_fingerprint(mod.even)
    chain = types.ModuleType("chain")
    body = "def f0(s):\n    return s\n" + "".join(
        f"def f{i}(s):\n    return f{i - 1}(s)\n" for i in range(1, MAX_DEPTH + 5)
    )
    exec(body, chain.__dict__)
    assert len(code_fingerprint(getattr(chain, f"f{MAX_DEPTH + 4}"))) == 64
