"""CPB digests: the algorithm registry, jcs-n's rules on text and on values, errors with their place.

jcs-n is withdrawn (draft -06) and no longer the default; its rules stay computable for verifying
vintage records. This file tests those rules, so here `cpb.preimage` & co. default to jcs-n through
the non-warning historical functions; the new defaults are tested in test_cpb_draft06.py."""

from __future__ import annotations

import enum
import json

import pytest
import rfc8785
from Crypto.Hash import SHA256
from hypothesis import given
from hypothesis import strategies as st

import fastjcs
from fastjcs import cpb as _cpb
from fastjcs.core import api as _core


class _JcsNDefault:
    """fastjcs.cpb with jcs-n as the default algorithm of the four digest functions (see above)."""

    def __getattr__(self, name):
        return getattr(_cpb, name)

    @staticmethod
    def preimage(value, *, algorithm="jcs-n", **kw):
        return _cpb.historical_preimage(value, algorithm=algorithm, **kw)

    @staticmethod
    def preimage_text(data, *, algorithm="jcs-n", **kw):
        return _cpb.historical_preimage_text(data, algorithm=algorithm, **kw)

    @staticmethod
    def canonical_digest(value, *, algorithm="jcs-n", **kw):
        return sha(_cpb.historical_preimage(value, algorithm=algorithm, **kw))

    @staticmethod
    def canonical_digest_text(data, *, algorithm="jcs-n", **kw):
        return sha(_cpb.historical_preimage_text(data, algorithm=algorithm, **kw))


cpb = _JcsNDefault()

INT_MAX = 2**53 - 1


def sha(b: bytes) -> str:
    return SHA256.new(b).hexdigest()


def oracle_jcs_n(value, exclusion=()):
    """Independent jcs-n (docs/contract.md) in a few lines over rfc8785."""

    def norm(v):
        if isinstance(v, dict):
            out = {k: norm(x) for k, x in v.items()}
            return {k: x for k, x in out.items() if not (x is None or x == [] or x == {})}
        return [norm(x) for x in v] if isinstance(v, list) else v

    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in exclusion}
    return rfc8785.dumps(norm(value))


# ---------------------------------------------------------------------------------------------------
# the algorithm registry
# ---------------------------------------------------------------------------------------------------


def test_registry_names_are_exact():
    assert sorted(cpb.CANONICALIZATIONS) == ["as-transmitted", "cde-n", "jcs", "jcs-n"]
    for name in ("JCS-N", "jcs_n", " jcs-n", "sha256", "", None):
        with pytest.raises(cpb.UnknownCanonicalizationError):
            cpb.canonical_digest({}, algorithm=name)
        with pytest.raises(fastjcs.UnsupportedAlgorithmError):
            cpb.canonical_digest_text(b"{}", algorithm=name)


def test_withdrawn_cde_n_fails_closed_everywhere():
    for call in (
        lambda: cpb.canonical_digest({}, algorithm="cde-n"),
        lambda: cpb.canonical_digest_text(b"{}", algorithm="cde-n"),
        lambda: cpb.preimage({}, algorithm="cde-n"),
        lambda: cpb.preimage_text(b"{}", algorithm="cde-n"),
        lambda: cpb.get_canonicalization("cde-n"),
    ):
        with pytest.raises(cpb.WithdrawnCanonicalizationError):
            call()


def test_as_transmitted_digests_the_octets_and_nothing_else():
    raw = b'{"b": 1, "a": 1.50}  '
    assert cpb.canonical_digest_text(raw, algorithm="as-transmitted") == sha(raw)
    assert cpb.canonical_digest(bytearray(raw), algorithm="as-transmitted") == sha(raw)
    with pytest.raises(cpb.CanonicalizationUsageError):
        cpb.canonical_digest_text(raw.decode(), algorithm="as-transmitted")  # a str has no octets
    with pytest.raises(cpb.CanonicalizationUsageError):
        cpb.canonical_digest({"a": 1}, algorithm="as-transmitted")
    with pytest.raises(cpb.CanonicalizationUsageError):
        cpb.canonical_digest_text(raw, algorithm="as-transmitted", exclusion_set=["a"])


def test_digests_are_bare_lowercase_hex(backend):
    d = cpb.canonical_digest({"a": "\u20ac"})
    assert d == sha('{"a":"\u20ac"}'.encode()) and len(d) == 64 and d == d.lower()


def test_jcs_is_rfc8785_as_is(backend):
    value = {"a": None, "b": [], "c": {}, "d": 1.5, "\u00c5": 1, "A\u030a": 2}
    assert cpb.preimage(value, algorithm="jcs") == rfc8785.dumps(value)
    text = b'{"a": null, "b": [], "d": 1.50, "e": -0, "f": 1E2}'
    assert cpb.preimage_text(text, algorithm="jcs") == fastjcs.canonicalize(text)
    assert cpb.preimage_text(text, algorithm="jcs", exclusion_set=["a"]) == b'{"b":[],"d":1.5,"e":0,"f":100}'
    with pytest.raises(fastjcs.DuplicateKeyError):
        cpb.preimage_text(b'{"a": 1, "a": 2}', algorithm="jcs", exclusion_set=["x"])


# ---------------------------------------------------------------------------------------------------
# jcs-n: normalization
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, want",
    [
        ({"outer": [{"x": None}]}, b'{"outer":[{}]}'),
        ([None], b"[null]"),
        ({"a": {"b": {"c": None}}}, b"{}"),
        ({"a": [[], {}], "b": {"c": []}}, b'{"a":[[],{}]}'),
        ({"k": "A\u030a"}, '{"k":"A\u030a"}'.encode()),  # strings are not NFC-normalized
        (None, b"null"),
        ("x", b'"x"'),
    ],
)
def test_normal_form(backend, value, want):
    assert cpb.preimage(value) == want
    assert cpb.preimage_text(json.dumps(value)) == want


def test_exclusion_is_top_level_and_exact(backend):
    value = {"id": 1, "ID": 2, "sub": {"id": 3}}
    assert cpb.preimage(value, exclusion_set=["id"]) == b'{"ID":2,"sub":{"id":3}}'
    assert cpb.preimage([{"id": 1}], exclusion_set=["id"]) == b'[{"id":1}]'  # no object at the top: no-op
    with pytest.raises(TypeError):
        cpb.preimage(value, exclusion_set="id")  # a bare str would exclude "i" and "d"
    with pytest.raises(TypeError):
        cpb.preimage(value, exclusion_set=[1])


# ---------------------------------------------------------------------------------------------------
# jcs-n: the rules on text, with their place
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, cls, path, offset",
    [
        (b'{"a": -0}', cpb.NonIntegerNumberError, '$["a"]', 6),
        (b'{"a": [1, 1.0]}', cpb.NonIntegerNumberError, '$["a"][1]', 10),
        (b'{"a": 1e2}', cpb.NonIntegerNumberError, '$["a"]', 6),
        (b'{"a": 0.0}', cpb.NonIntegerNumberError, '$["a"]', 6),
        (b'{"a": 9007199254740992}', cpb.UnsafeIntegerError, '$["a"]', 6),
        (b"[-9007199254740992]", cpb.UnsafeIntegerError, "$[0]", 1),
        (b'{"x": {"a": 1, "a": 2}}', cpb.DuplicateNameTextError, '$["x"]["a"]', 15),
        ('{"x": {"\u00c5": 1, "A\u030a": 2}}'.encode(), cpb.DuplicateNameTextError, '$["x"]["A\u030a"]', 16),
        (b'{"K": 1, "\\u212a": 2}', cpb.DuplicateNameTextError, '$["\u212a"]', 9),
    ],
)
def test_text_refusals_name_rule_and_place(backend, text, cls, path, offset):
    with pytest.raises(cls) as info:
        cpb.canonical_digest_text(text)
    err = info.value
    assert isinstance(err, fastjcs.CanonicalizationError) and isinstance(err, cpb.WireRuleError)
    assert (err.rule, err.path, err.offset, err.lineno) == ("R", path, offset, 1)
    assert err.code in str(err) and path in str(err)


def test_first_finding_in_document_order_wins(backend):
    with pytest.raises(cpb.NonIntegerNumberError) as info:
        cpb.preimage_text(b'{"z": {"a": 1.5}, "b": 9007199254740992}')
    assert info.value.path == '$["z"]["a"]'


def test_json_loads_would_lose_these_and_the_text_path_does_not(backend):
    for text in (b'{"a": -0}', b'{"a": 1, "a": 1}'):
        json.loads(text)  # accepted, and collapsed
        with pytest.raises(cpb.WireRuleError):
            cpb.preimage_text(text)


def test_exact_duplicates_are_refused_where_canonicalize_refuses_them(backend):
    text = b'{"a": {"k": 1, "k": 2}, "b": 1.5}'
    with pytest.raises(fastjcs.DuplicateKeyError) as theirs:
        _core.canonicalize(text)
    with pytest.raises(cpb.DuplicateNameTextError) as ours:
        cpb.preimage_text(text)
    assert isinstance(ours.value, fastjcs.DuplicateKeyError)
    assert (ours.value.offset, ours.value.key) == (theirs.value.offset, theirs.value.key)


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b" ",
        b"{",
        b"[1,]",
        b'{"a":1,}',
        b"\xef\xbb\xbf{}",
        b'{"a":"\xff"}',
        b'"\\ud800"',
        b"01",
        b"-",
        b"1.",
        b"1e",
        b"nul",
        b'{"a" 1}',
        b"[1 2]",
        b"1e400",
        b'"\x01"',
        b'{"a": -0, "b": }',
        b"[-0] x",
        b'{"a": 1.5, "b": tru}',
        b"[" * 50 + b"]" * 49,
    ],
)
def test_strict_rfc8259_first_with_canonicalizes_error(backend, text):
    with pytest.raises(fastjcs.CanonicalizationError) as theirs:
        _core.canonicalize(text)
    for algorithm in ("jcs-n", "jcs"):
        with pytest.raises(fastjcs.CanonicalizationError) as ours:
            cpb.preimage_text(text, algorithm=algorithm, exclusion_set=["x"])
        assert type(ours.value) is type(theirs.value)
        # Same class and position on either backend (the C core's messages are its own).
        assert (ours.value.offset, ours.value.lineno, ours.value.colno) == (
            theirs.value.offset,
            theirs.value.lineno,
            theirs.value.colno,
        )
    with pytest.raises(type(theirs.value)):
        cpb.check(text)


def test_wire_rules_cover_what_the_digest_covers(backend):
    """Exclusion comes first: a float inside an excluded member is not digested, so not refused."""
    assert cpb.preimage_text(b'{"id": {"x": 1.5}, "a": 1}', exclusion_set=["id"]) == b'{"a":1}'
    assert (
        cpb.preimage_text('{"\u00c5": 1, "A\u030a": 2}'.encode(), exclusion_set=["\u00c5"]) == '{"A\u030a":2}'.encode()
    )
    with pytest.raises(cpb.DuplicateNameTextError):  # two NFC-equal names survive the exclusion
        cpb.preimage_text('{"\u00c5": 1, "A\u030a": 2, "\u212b": 3}'.encode(), exclusion_set=["\u00c5"])
    with pytest.raises(cpb.DuplicateNameTextError):  # an exact duplicate is RFC 8259/I-JSON: always refused
        cpb.preimage_text(b'{"id": 1, "id": 2}', exclusion_set=["id"])


# ---------------------------------------------------------------------------------------------------
# jcs-n: the rules on Python values
# ---------------------------------------------------------------------------------------------------


class Colour(enum.IntEnum):
    RED = 1


class Ratio(float):
    pass


@pytest.mark.parametrize(
    "value, cls, path",
    [
        ({"a": 1.0}, cpb.NonIntegerNumberError, '$["a"]'),
        ({"a": [Ratio(2)]}, cpb.NonIntegerNumberError, '$["a"][0]'),
        ({"a": {"b": [2**53]}}, cpb.UnsafeIntegerError, '$["a"]["b"][0]'),
        ({"a": -(2**53)}, cpb.UnsafeIntegerError, '$["a"]'),
        ({"s": {"\u00c5": 1, "A\u030a": 2}}, cpb.DuplicateNameError, '$["s"]["A\u030a"]'),
    ],
)
def test_value_refusals(backend, value, cls, path):
    with pytest.raises(cls) as info:
        cpb.canonical_digest(value)
    assert info.value.path == path and info.value.offset is None


def test_value_edges(backend):
    assert (
        cpb.preimage({"t": True, "c": Colour.RED, "x": (INT_MAX, -INT_MAX)})
        == b'{"c":1,"t":true,"x":[9007199254740991,-9007199254740991]}'
    )
    with pytest.raises(fastjcs.UnsupportedTypeError):
        cpb.preimage({1: None})  # a non-str key is refused even when normalization would drop it
    with pytest.raises(fastjcs.UnsupportedTypeError):
        cpb.preimage({"a": {1, 2}})
    cyclic: dict = {}
    cyclic["me"] = [cyclic]
    with pytest.raises(fastjcs.CircularReferenceError):
        cpb.preimage(cyclic)


def test_depth_bound_without_recursion(backend):
    deep_ok: list = []
    node = deep_ok
    for _ in range(3000):
        node.append({"a": [], "k": 1})
        node = node[0]["a"]
    assert cpb.preimage(deep_ok).count(b'"k":1') == 3000  # far past the recursion limit
    with pytest.raises(fastjcs.DepthLimitError):
        cpb.preimage(deep_ok, max_depth=100)
    with pytest.raises(fastjcs.DepthLimitError):
        cpb.preimage_text(b"[" * 1_000_000)
    for bad in (-1, 1.5, "10", True):
        with pytest.raises(ValueError):
            cpb.preimage_text(b"[]", max_depth=bad)
        with pytest.raises(ValueError):
            cpb.check(b"[]", max_depth=bad)
    with pytest.raises(fastjcs.DepthLimitError) as info:
        cpb.preimage_text(b'{"a":' * 11 + b"1" + b"}" * 11, max_depth=10)
    assert info.value.offset == 50


# ---------------------------------------------------------------------------------------------------
# properties: text path == value path == an independent jcs-n
# ---------------------------------------------------------------------------------------------------

names = st.sampled_from(["a", "b", "id", "\u00e9", "\ue000", "\ufb33", "\U0001f602", "A\u030a", "\u20ac", ""])
leaves = st.none() | st.booleans() | st.integers(-INT_MAX, INT_MAX) | st.text(max_size=5)
values = st.recursive(
    leaves, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(names, kids, max_size=4), max_leaves=20
)


def nfc_distinct(value) -> bool:
    import unicodedata

    if isinstance(value, dict):
        forms = [unicodedata.normalize("NFC", k) for k in value]
        return len(set(forms)) == len(forms) and all(nfc_distinct(v) for v in value.values())
    if isinstance(value, list):
        return all(nfc_distinct(v) for v in value)
    return True


@given(values, st.lists(names, max_size=2))
def test_jcs_n_agrees_with_an_independent_oracle(value, exclusion):
    if not nfc_distinct(value):
        with pytest.raises(cpb.DuplicateNameError):
            cpb.preimage_text(json.dumps(value))
        return
    want = oracle_jcs_n(value, exclusion)
    assert cpb.preimage(value, algorithm="jcs-n", exclusion_set=exclusion) == want
    assert cpb.preimage_text(json.dumps(value), algorithm="jcs-n", exclusion_set=exclusion) == want
    assert (
        cpb.preimage_text(json.dumps(value, ensure_ascii=False, indent=1), algorithm="jcs-n", exclusion_set=exclusion)
        == want
    )
    assert cpb.preimage(value, algorithm="jcs") == rfc8785.dumps(value)
    assert cpb.normalize(value, exclusion_set=exclusion) == json.loads(want)


@given(st.binary(max_size=30) | st.text(alphabet='{}[]",:-0123456789.eE tfnrul\\u', max_size=30).map(str.encode))
def test_scanner_refuses_exactly_what_canonicalize_refuses(data):
    try:
        want = _core.canonicalize(data)
    except fastjcs.DuplicateKeyError:
        with pytest.raises(fastjcs.DuplicateKeyError):
            cpb.preimage_text(data, algorithm="jcs", exclusion_set=["x"])
        return
    except Exception as exc:  # any class: the reference parser's own failures (b"0E0E") are shared too
        with pytest.raises(type(exc)) as info:
            cpb.preimage_text(data, algorithm="jcs", exclusion_set=["x"])
        assert getattr(info.value, "offset", None) == getattr(exc, "offset", None)
        return
    assert cpb.preimage_text(data, algorithm="jcs", exclusion_set=["x"]) == want
