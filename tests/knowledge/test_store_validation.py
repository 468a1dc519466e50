"""The issue's bad calls: each is refused with a SolviLabError before anything is written, and the journal reloads."""

import pytest

from solvi_lab.errors import BadInput, SolviLabError, UnknownId
from solvi_lab.journal import Journal
from solvi_lab.knowledge import KnowledgeStore

FACT = {"s": "c17", "r": "tier", "o": "vip"}


@pytest.fixture
def ks(tmp_path):
    ks = KnowledgeStore(tmp_path / "ks.jsonl")
    ks.add("fact", FACT, source="person")
    ks.flag(ids=["k0"], why="drift")
    yield ks
    ks.close()


BAD_CALLS = [
    ("add(kind=list)", lambda ks: ks.add(["fact"], FACT, source="person"), "kind must be"),
    ("add(source=list)", lambda ks: ks.add("fact", FACT, source=["person"]), "source must be"),
    ("add(of=tuple)", lambda ks: ks.add("fact", FACT, source="verified", of=("x",)), "of must be"),
    ("add(supersedes=list)", lambda ks: ks.add("fact", FACT, source="person", supersedes=["k0"]), "supersedes"),
    ("add(body NaN)", lambda ks: ks.add("fact", {**FACT, "o": float("nan")}, source="person"), "body must be"),
    ("add(lone surrogate)", lambda ks: ks.add("fact", {**FACT, "o": "\ud800"}, source="person"), "body must be"),
    ("add(by huge int)", lambda ks: ks.add("fact", FACT, source="person", by=10**5000), "by must be"),
    ("add(deep body)", lambda ks: ks.add("fact", {**FACT, "o": _deep()}, source="person"), "body must be"),
    ("end_flag(list)", lambda ks: ks.end_flag(["f1"], by="a", why="b"), "flag must be"),
    ("query(s=set)", lambda ks: ks.query(s={"c17"}), "s must be"),
    ("rebuild(skip=None)", lambda ks: ks.rebuild(skip=None), "skip must be"),
    ("rebuild(skip unknown)", lambda ks: ks.rebuild(skip=["k99"]), "no item 'k99'"),
    ("tick('x')", lambda ks: ks.tick("x"), "tick"),
    ("retract(why surrogate)", lambda ks: ks.retract("k0", by="a", why="\udfff"), "why must be"),
    ("resolve(value set)", lambda ks: ks.resolve("k0", {1}, by="a"), "value must be"),
    ("append knowledge {op: add}", lambda ks: ks.journal.append("knowledge", {"op": "add"}), r"field '\w+' is missing"),
    ("append knowledge [1]", lambda ks: ks.journal.append("knowledge", [1]), "must be a JSON object"),
    ("append decision {}", lambda ks: ks.journal.append("decision", {}), r"field '\w+' is missing"),
    ("append tick k='x'", lambda ks: ks.journal.append("knowledge", {"op": "tick", "k": "x"}), "field 'k'"),
]


def _deep(n=3000):
    v = "x"
    for _ in range(n):
        v = [v]
    return v


@pytest.mark.parametrize("name, call, match", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_call_is_refused_before_writing(ks, name, call, match):
    path = ks.journal.path
    before = path.read_bytes()
    with pytest.raises(SolviLabError, match=match):
        call(ks)
    assert path.read_bytes() == before
    ks.close()
    with KnowledgeStore(path) as again:
        assert again.verify() and len(again.journal) == 2


def test_errors_are_the_documented_types(ks):
    with pytest.raises(UnknownId):
        ks.rebuild(skip=["k99"])
    with pytest.raises(BadInput):
        ks.add("fact", FACT, source="person", by={1, 2})
    assert isinstance(Journal, type)
