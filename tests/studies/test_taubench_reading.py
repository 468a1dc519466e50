"""Templates that read what the environment reads, and the probes of issue 43 (labelled by the environment)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from solvi_lab.errors import BadParameter, DataMissing
from solvi_lab.studies.taubench.airline.tools import Calculate as AirlineCalculate
from solvi_lab.studies.taubench.reading_templates import (
    length_class,
    list_conditions,
    parse_class,
    parsed_by_tool,
    parser_of,
    raises,
    shape_conditions,
    token_pattern,
    walk_as_tool,
)
from solvi_lab.studies.taubench.scoring import score, verdicts
from solvi_lab.studies.taubench.tools import Calculate, evaluate_expression


def test_parse_class_reads_the_text_with_the_tools_own_function() -> None:
    """D3: the shape condition calls the environment's own parser (tools.evaluate_expression), not a copy of it, so
    its class is what calculate does: "finite" exactly where the tool answers a number, an error's kind otherwise."""
    parse = Calculate.parses["expression"]
    assert parse is evaluate_expression and AirlineCalculate.parses["expression"] is evaluate_expression
    finite = ("2 + 2", " 12.5 * (3 + 4)", "10 // 3", "-(1.5)", "2 ** 10", "(2 ** 2000) / (2 ** 1990)")
    assert {parse_class(parse, t) for t in finite} == {"finite"}
    cases = {
        "1,000 + 2": "InvalidCharacters",
        "1_000 + 2": "InvalidCharacters",
        "7 % 2": "InvalidCharacters",
        "1e3 + 1": "InvalidCharacters",
        "(1 + 2": "SyntaxError",
        "1 + 2)": "SyntaxError",
        "": "SyntaxError",
        "3.5(2)": "TypeError",
        "2 ** 10000": "OverflowError",
        "10.0 ** 400": "OverflowError",
        "2 ** 99999999": "OverflowError",
        "1 / 0": "ZeroDivisionError",
        "5 // (1 - 1)": "ZeroDivisionError",
    }
    assert {t: parse_class(parse, t) for t in cases} == cases
    for text in (*finite, *cases):  # the condition says what the tool itself does
        answer = Calculate.invoke(None, text)
        assert answer.startswith("Error:") is (parse_class(parse, text) != "finite"), text
    with pytest.raises(TypeError):
        parse_class(parse, 5)  # not text: unreadable (the jtype condition reads it)
    assert [parse_class(float, t) for t in ("1e400", "nan", "x")] == ["not finite", "not finite", "ValueError"]
    assert parse_class(str.upper, "a") == "parsed"
    assert parser_of(Calculate, "expression") is evaluate_expression and parser_of(Calculate, "x") is None


def test_pattern_length_and_which_arguments_are_parsed() -> None:
    assert token_pattern("1,000 + 2") == "9,9 + 9" != token_pattern("1.000 + 2") == "9.9 + 9"
    assert token_pattern("2024-05-15") == "9-9-9" and token_pattern("May 15") == "a 9"
    assert token_pattern("word " * 30) == "long" and token_pattern("") == ""
    assert [length_class(t) for t in ("", "a" * 16, "a" * 17, "a" * 64, "a" * 65)] == [
        "empty",
        "short",
        "medium",
        "medium",
        "long",
    ]
    assert parsed_by_tool({"description": "The date in the format 'YYYY-MM-DD'."})
    assert not parsed_by_tool({"description": "A summary of the user's issue."})
    c = shape_conditions("expression", evaluate_expression)
    # with the tool's parser: its reading (class, raises or not) replaces the separators, a proxy of it
    assert sorted(c) == ["expression:length", "expression:parse", "expression:raises"]
    assert sorted(shape_conditions("date")) == ["date:length", "date:symbols"]  # no parser declared: no parse
    assert "expression:pattern" in shape_conditions("expression", pattern=True)
    read = {t: c["expression:raises"](None, {"expression": t}) for t in ("2+2", "(2 + 2) // 3", "1,000", "2 ** 10000")}
    assert read == {"2+2": False, "(2 + 2) // 3": False, "1,000": True, "2 ** 10000": True}
    assert raises(float, "1e400") is False and raises(float, "nan") is False  # a value, though not finite
    with pytest.raises(TypeError):
        raises(evaluate_expression, 5)


def test_raises_lets_one_rejected_text_explain_the_others_but_not_a_new_value() -> None:
    """Signatures are sets of conditions: a refused text the parser rejects gives {parse, raises}; every other
    rejected text violates both and is refused, while a text that parses to a value never seen (not finite) violates
    only ``parse`` and stays "unknown" (without ``raises`` the signature would be {parse}: a false refusal)."""
    from solvi_lab.actions import ConservativeActionModel, Vocabulary

    model = ConservativeActionModel(Vocabulary(shape_conditions("expression", evaluate_expression)), journal=False)
    for text, ok in (("2 + 2", True), ("(1 + 2) * 3", True), ("1 + ", False)):
        model.observe({}, "calc", {"expression": text}, ok)
    verdict = {t: model.predict({}, "calc", {"expression": t}).verdict for t in ("2 ** 10000", "1,000", "(1", "2+2")}
    assert verdict == {"2 ** 10000": "refuse", "1,000": "refuse", "(1": "refuse", "2+2": "accept"}
    not_finite = "10.0 ** 300 * 10.0 ** 300"
    assert parse_class(evaluate_expression, not_finite) == "not finite"
    assert not Calculate.invoke(None, not_finite).startswith("Error")  # the tool answers it: accepted
    assert model.predict({}, "calc", {"expression": not_finite}).verdict == "unknown"


def test_lists_are_walked_as_a_loop_walks_them() -> None:
    assert walk_as_tool("") == [] == walk_as_tool({}) == walk_as_tool([])
    assert walk_as_tool({"a": 1, "b": 2}) == ["a", "b"] and walk_as_tool("ab") == ["a", "b"]
    with pytest.raises(TypeError):
        walk_as_tool(5)
    c = list_conditions("ids")
    read = {k: [p(None, {"ids": v}) for v in ("", [], {"x": 1}, ["a", "b", "c"])] for k, p in c.items()}
    assert read == {"ids:iterates": ["string", "list", "mapping", "list"], "ids:iter_len": [0, 0, 1, "2+"]}
    assert c["ids:iterates"](None, {"ids": None}) == "none"


@pytest.fixture(scope="module")
def retail():
    from solvi_lab.studies.taubench.data import find_data_dir, load_retail
    from solvi_lab.studies.taubench.env import RetailEnv

    try:
        data = load_retail(find_data_dir(None))
    except DataMissing as e:
        pytest.skip(str(e))
    return data, RetailEnv(data)


def test_retail_vocabulary_reads_money_and_lists_as_the_environment(retail) -> None:
    from solvi_lab.studies.taubench.vocabulary import build_vocabulary

    data, base = retail
    v = build_vocabulary(data.tools, base.state)
    old = build_vocabulary(data.tools, base.state, exact_money=False, lists=False)
    # a text the tool declares it parses is read by its parser; the character classes stay only without the family
    calc = [c for c in v.conditions("calculate") if c.startswith("expression:")]
    assert sorted(calc) == [
        "expression:jtype",
        "expression:length",
        "expression:parse",
        "expression:raises",
        "expression:type",
    ]
    unshaped = build_vocabulary(data.tools, base.state, shapes=False).conditions("calculate")
    assert "expression:has_digits" in unshaped and "expression:parse" not in unshaped
    s = base.state
    oid, order = next(
        (k, o)
        for k, o in s["orders"].items()
        if o["status"] == "pending"
        and any(len(s["products"][i["product_id"]]["variants"]) > 2 for i in o["items"])
        and any(pm.startswith("gift_card") for pm in s["users"][o["user_id"]]["payment_methods"])
    )
    item = next(i for i in order["items"] if len(s["products"][i["product_id"]]["variants"]) > 2)
    new = next(
        vid
        for vid, var in s["products"][item["product_id"]]["variants"].items()
        if vid != item["item_id"] and var["available"]
    )
    gift = next(pm for pm in s["users"][order["user_id"]]["payment_methods"] if pm.startswith("gift_card"))
    args = {"order_id": oid, "item_ids": [item["item_id"]], "new_item_ids": [new], "payment_method_id": gift}
    diff = s["products"][item["product_id"]]["variants"][new]["price"] - item["price"]
    tool = "modify_pending_order_items"
    for balance in (diff, math.nextafter(diff, -math.inf), diff - 0.005, diff + 0.005, round(diff, 2)):
        env = base.copy()
        env.edit("users", order["user_id"])["payment_methods"][gift] = {
            **s["users"][order["user_id"]]["payment_methods"][gift],
            "balance": balance,
        }
        accepted = not env.copy().step(tool, args).refused
        read = v.read(env.state, tool, args)
        # the exact amount is the environment's own: its comparison is the environment's verdict on the balance
        assert read["payment_method_id:covers(new_item_ids-item_ids)"] is (balance >= diff) or diff <= 0
        if diff > 0:
            assert read["payment_method_id:covers(new_item_ids-item_ids)"] is accepted, balance
    # "" is walked as [] (the JSON type apart); without the family it is unreadable
    empty = v.read(s, "return_delivered_order_items", {"order_id": oid, "item_ids": "", "payment_method_id": gift})
    as_list = v.read(s, "return_delivered_order_items", {"order_id": oid, "item_ids": [], "payment_method_id": gift})
    differs = {k for k in empty if empty[k] != as_list[k]}
    assert differs == {"item_ids:jtype", "item_ids:iterates", "item_ids:empty"} | {
        k for k in differs if "&" in k and ("item_ids:iterates" in k or "item_ids:empty" in k)
    }
    assert (
        old.read(s, "return_delivered_order_items", {"order_id": oid, "item_ids": "", "payment_method_id": gift})[
            "item_ids:type"
        ]
        is False
    )
    assert empty["item_ids:type"] is True


def test_reading_probes_are_labelled_by_the_environment_and_never_falsely_accepted(retail) -> None:
    """Issue 43's probe set on the dev split (never read in design), the model trained as the quick study trains it:
    no refused call predicted "accept"; without the new families, the same probes pass through."""
    from solvi_lab.studies.taubench.probes import _effect, split_probes
    from solvi_lab.studies.taubench.reading_probes import reading_family, reading_probes
    from solvi_lab.studies.taubench.study import train
    from solvi_lab.studies.taubench.vocabulary import build_vocabulary

    data, base = retail
    probes = reading_probes(base, data.tools, data.tasks["dev"], _effect)
    tally = Counter((reading_family(t.origin), t.accepted) for t in probes)
    assert all(tally[(f, ok)] > 0 for f in ("expression", "list", "money") for ok in (True, False)), tally
    for t in probes[:60]:  # labels are the environment's own verdicts on the stored state
        env_copy = base.copy()
        env_copy.state.update(t.state)
        assert (not env_copy.step(t.tool, t.args).refused) is t.accepted
    train_set = split_probes(data, "train", 40, seed=0, budget=100, base=base)
    s = score(verdicts(train(train_set, build_vocabulary(data.tools, base.state)), probes))
    assert s["false_accepts"] == 0 and s["refused"] > 0
    before = score(
        verdicts(
            train(train_set, build_vocabulary(data.tools, base.state, shapes=False, exact_money=False, lists=False)),
            probes,
        )
    )
    assert before["false_accepts"] > 0  # the probes find what the families fix
    with pytest.raises(BadParameter, match="tools' schemas"):
        reading_probes(base, [], data.tasks["dev"], _effect)


def test_airline_reading_probes_never_falsely_accepted() -> None:
    from solvi_lab.studies.taubench.airline.data import find_airline_dir, load_airline
    from solvi_lab.studies.taubench.airline.env import AirlineEnv
    from solvi_lab.studies.taubench.airline.probes import effect_of, tasks_probes
    from solvi_lab.studies.taubench.airline.vocabulary import build_vocabulary
    from solvi_lab.studies.taubench.reading_probes import reading_probes
    from solvi_lab.studies.taubench.study import train

    try:
        data = load_airline(find_airline_dir(None))
    except DataMissing as e:
        pytest.skip(str(e))
    base = AirlineEnv(data)
    even = [int(t["index"]) for t in data.tasks if int(t["index"]) % 2 == 0]
    model = train(tasks_probes(data, even, seed=0, budget=40, base=base), build_vocabulary(data.tools))
    probes = reading_probes(base, data.tools, [t for t in data.tasks if int(t["index"]) % 2 == 1], effect_of)
    s = score(verdicts(model, probes))
    assert s["false_accepts"] == 0 and s["refused"] > 0 and s["probes"] == len(probes)
