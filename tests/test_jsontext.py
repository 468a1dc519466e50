"""solvi_lab.jsontext and the fast paths built on it give exactly stdlib json's text, values and errors."""

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from solvi_lab.journal import _DECODE, canonical
from solvi_lab.jsontext import decoder, dumps_canonical, dumps_plain
from solvi_lab.knowledge.staleness import fact_key


def ref_canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def ref_plain(obj):
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def outcome(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:  # the exact error is what must match
        return (type(e), str(e))


# Any text, lone surrogates, control characters, quotes and backslashes included.
texts = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF)) | st.sampled_from(
    ["", '"', "\\", "\x00", "\x1f", "\x7f", "\u2028", "\ud800", "\udfff", "é", "𝄞", 'a"b\\c\nd\te']
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | texts
    | st.sampled_from([-0.0, 1e308, 5e-324, 2**64 + 1])
    | st.just(5000).map(lambda n: 10**n)  # too long for str(int); built lazily (hypothesis reprs its examples)
)
keys = texts | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
values = st.recursive(
    scalars | st.sets(st.integers(), max_size=2) | st.sampled_from([object()]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(keys, inner, max_size=4)
        | st.dictionaries(texts, inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=600, deadline=None)
@given(values)
def test_dumps_are_stdlib(v):
    assert outcome(dumps_canonical, v) == outcome(ref_canonical, v)
    assert outcome(canonical, v) == outcome(ref_canonical, v)
    assert outcome(dumps_plain, v) == outcome(ref_plain, v)


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.none(), st.dictionaries(texts, texts | st.integers(), max_size=3), values), texts, texts)
def test_fact_key_is_canonical_of_the_triple(scope, s, r):
    assert outcome(fact_key, scope, s, r) == outcome(ref_canonical, [scope, s, r])


@given(values, values)
def test_fact_key_other_types(s, r):
    assert outcome(fact_key, None, s, r) == outcome(ref_canonical, [None, s, r])


def test_circular_values_and_repeated_use():
    a = []
    a.append(a)
    for _ in range(3):  # a failed call leaves no memo behind that refuses the next value
        assert outcome(dumps_canonical, a) == outcome(ref_canonical, a) == (ValueError, "Circular reference detected")
        x = {"k": [1, {2}]}
        assert outcome(dumps_canonical, x) == outcome(ref_canonical, x)
        shared = [1]
        assert dumps_canonical([shared, shared]) == "[[1],[1]]"


def _refuse(name):
    raise ValueError(f"{name} is not a JSON number")


json_texts = st.one_of(
    st.builds(ref_plain, values.filter(lambda v: outcome(ref_plain, v)[0] == "ok")),
    st.builds(ref_canonical, values.filter(lambda v: outcome(ref_canonical, v)[0] == "ok")),
    texts,
    st.sampled_from(
        [
            "",
            " ",
            " 1",
            "1 ",
            "1 2",
            "[1,",
            "NaN",
            "[Infinity]",
            "-Infinity",
            '{"a":1}x',
            "\ufeff1",
            '"\\ud800"',
            '"\ud800"',
            "[" * 3000 + "]" * 3000,
            '{"a":1,"a":2}',
            "tru",
            "\n[1]\n",
        ]
    ),
)


@settings(max_examples=800, deadline=None)
@given(json_texts | st.just(5000).map(lambda n: "1" * n))
def test_decoder_is_stdlib(text):
    for dec in (json.JSONDecoder(), json.JSONDecoder(parse_constant=_refuse)):
        got, want = outcome(decoder(dec), text), outcome(dec.decode, text)
        assert got[0] == want[0]
        if got[0] == "ok":
            assert repr(got[1]) == repr(want[1]) or (  # NaN != NaN
                isinstance(want[1], float) and math.isnan(want[1])
            )
        else:
            assert got == want
    strict = json.JSONDecoder(parse_constant=_refuse)
    assert outcome(_DECODE, text)[0] == outcome(strict.decode, text)[0]


def test_decoder_keeps_key_order_and_types():
    text = '{"b":[1,2.5,"x",null,true],"a":{"z":1,"y":-0.0}}'
    got = decoder(json.JSONDecoder())(text)
    assert got == json.loads(text) and list(got) == ["b", "a"] and list(got["a"]) == ["z", "y"]
    assert outcome(decoder(json.JSONDecoder()), b"[1]") == outcome(json.JSONDecoder().decode, b"[1]")


def _as_bytes(text):
    return text.encode("utf-8", "surrogatepass")


line_bytes = st.one_of(
    st.builds(_as_bytes, json_texts),
    st.binary(max_size=40),
    st.sampled_from(
        [
            b"\xef\xbb\xbf1",
            b"\xff",
            b'"\xed\xa0\x80"',  # an encoded lone surrogate: not UTF-8
            b'"\\ud83d\\ude00"',
            b'"\\ud800"',
            b"1e400",
            b"1e-400",
            b"-9223372036854775809",
            b"18446744073709551616",
            b"123456789012345678901234567890.5",
            b"0.1000000000000000055511151231257827",
            b"[" * 1100 + b"]" * 1100,
            b'"\xef\xbf\xbe\xef\xbf\xbf"',
            b"1\r",
            b'{"a":1,"a":2}',
        ]
    ),
    st.builds(
        lambda mant, exp: f"{mant}e{exp}".encode(),
        st.integers(1, 10**18),
        st.integers(-345, 320),
    ),
    st.builds(lambda x: repr(x).encode(), st.floats(allow_nan=False, allow_infinity=False)),
    st.builds(lambda x: str(x).encode(), st.integers(-(2**70), 2**70)),
)


@settings(max_examples=1500, deadline=None)
@given(line_bytes)
def test_bytes_decoder_is_stdlib(data):
    from solvi_lab.jsontext import bytes_decoder

    for dec in (json.JSONDecoder(parse_constant=_refuse), json.JSONDecoder()):
        got = outcome(bytes_decoder(dec), data)
        want = outcome(lambda b, dec=dec: dec.decode(b.decode("utf-8")), data)
        assert got[0] == want[0]
        if got[0] == "ok":
            assert repr(got[1]) == repr(want[1]) or (isinstance(want[1], float) and math.isnan(want[1]))
            assert type(got[1]) is type(want[1])
        else:
            assert got == want
