"""Digests (docs/contract.md, "Digests"): values, algorithm names, the three representations, the batch API.

Expected digests come from outside the code under test: rfc8785.dumps + pycryptodome, computed here.
Every test that canonicalizes takes the `backend` fixture, so it runs on both backends.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import json
import re

import pytest
import rfc8785
from Crypto.Hash import SHA256, SHA384
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastjcs
import fastjcs.eab
from fastjcs import (
    CanonicalizationError,
    DuplicateKeyError,
    FloatDomainError,
    IntegerDomainError,
    InvalidDigestError,
    InvalidJSONError,
    ParsedDigest,
    UnsupportedAlgorithmError,
    UnsupportedTypeError,
    digest,
    digest_many,
    digest_text,
    digest_texts,
    parse_digest,
    parse_hex_digest,
    render_digest,
)
from fastjcs.core import hashing as _hash

digest_module = importlib.import_module("fastjcs.core.digests")

HASHES = {"sha256": SHA256, "sha384": SHA384}


def reference(obj, algorithm="sha256") -> str:
    """The digest by the peer implementation: rfc8785 + pycryptodome's hash object."""
    return algorithm + ":" + HASHES[algorithm].new(rfc8785.dumps(obj)).hexdigest()


# JSON values rfc8785 accepts (no lone surrogates, ints within +/-(2^53-1), finite floats).
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53 - 1), 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text
)
json_values = st.recursive(
    _scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_text, kids, max_size=4),
    max_leaves=12,
)

fixture_ok = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])

SAMPLES = [
    {"x": 1},
    {"b": [1.0, "\u20ac", None, True], "a": {"\U0001f602": 1e21, "\ufb33": -0.0}},
    [],
    "",
    1e-7,
    {"action_scope": "\u5de5\u5177/merchant-7", "version": 1},
]

# ---------------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["sha256", "sha384"])
@pytest.mark.parametrize("obj", SAMPLES, ids=range(len(SAMPLES)))
def test_digest_matches_rfc8785_plus_pycryptodome(backend, obj, algorithm):
    assert digest(obj, algorithm) == reference(obj, algorithm)


def test_digest_pinned_strings(backend):
    # Exact strings (sha256 of b'{"x":1}' and of b'{}'), not recomputed by anything under test.
    assert digest({"x": 1.0}) == "sha256:5041bf1f713df204784353e82f6a4a535931cb64f1f4b4a5aeaffcb720918b22"
    assert digest({}) == "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    # coreutils sha384sum of the two bytes "{}"
    assert digest({}, "sha384") == (
        "sha384:d2a23bc783e3aa38f401e13c7488505137c4954a7fd88331f1597c5ff71111dc807c7370a5b282c6da541c56ede69f30"
    )


@fixture_ok
@given(obj=json_values, algorithm=st.sampled_from(["sha256", "sha384"]))
def test_digest_property(backend, obj, algorithm):
    rendered = digest(obj, algorithm)
    assert rendered == reference(obj, algorithm)
    assert parse_digest(rendered).algorithm == algorithm


@fixture_ok
@given(obj=json_values)
def test_digest_text_equals_digest_of_parsed_value(backend, obj):
    text = json.dumps(obj, ensure_ascii=False)
    assert digest_text(text) == digest(obj) == digest_text(text.encode("utf-8"))


def test_digest_text_options(backend):
    big = b"[12345678901234567890]"
    assert digest_text(big) == reference([12345678901234567890.0])
    with pytest.raises(IntegerDomainError):
        digest_text(big, strict_integers=True)
    with pytest.raises(InvalidJSONError):
        digest_text(b'{"a":1,}')
    with pytest.raises(CanonicalizationError):
        digest([[[]]], max_depth=2)


# ---------------------------------------------------------------------------------------------------
# Algorithm names: exact
# ---------------------------------------------------------------------------------------------------

REFUSED_ALGORITHMS = [
    "sha512",
    "SHA256",
    "sha-256",
    "Sha256",
    "SHA384",
    "sha_256",
    " sha256",
    "sha256 ",
    "sha256\n",
    "sha256\x00",
    "sha1",
    "md5",
    "sha3-256",
    "",
    "sha",
    "256",
    "\uff53ha256",
    None,
    b"sha256",
    256,
    ["sha256"],
]


def assert_refuses(algorithm) -> None:
    """Every entry point that takes an algorithm refuses it with UnsupportedAlgorithmError."""
    calls = [
        lambda: digest({"x": 1}, algorithm),
        lambda: digest_text(b"{}", algorithm),
        lambda: digest_many([{}], algorithm),
        lambda: digest_texts([b"{}"], algorithm),
        lambda: render_digest(algorithm, bytes(32)),
        lambda: fastjcs.eab.binding("a", "t", "s", "ts", algorithm),
    ]
    for call in calls:
        with pytest.raises(UnsupportedAlgorithmError):
            call()


@pytest.mark.parametrize("algorithm", REFUSED_ALGORITHMS, ids=repr)
def test_unsupported_algorithms_are_refused(backend, algorithm):
    assert_refuses(algorithm)


def test_unsupported_algorithm_checked_before_the_value(backend):
    with pytest.raises(UnsupportedAlgorithmError):
        digest(object(), "sha512")  # not an UnsupportedTypeError: the name is refused first


def test_mutant_case_insensitive_algorithm_is_caught(backend, monkeypatch):
    """A lenient name check (lower-casing, dropping dashes) must fail assert_refuses."""
    strict = _hash.check_algorithm

    def lenient(algorithm):
        if isinstance(algorithm, str):
            algorithm = algorithm.strip().lower().replace("-", "")
        return strict(algorithm)

    for module in (digest_module, fastjcs.eab.bindings):
        monkeypatch.setattr(module, "check_algorithm", lenient)
    for name in ("SHA256", "sha-256", " sha256"):
        with pytest.raises(pytest.fail.Exception):
            assert_refuses(name)


def test_str_subclass_algorithm_is_taken_by_its_characters(backend):
    class Alg(str, enum.Enum):
        SHA384 = "sha384"

    rendered = digest({"x": 1}, Alg.SHA384)
    assert type(rendered) is str and rendered == reference({"x": 1}, "sha384")


def test_oneshot_fallback_through_the_public_hash_object():
    """pycryptodome releases without module-level digest(): the hash object gives the same bytes."""

    class OldSHA256:
        new = staticmethod(SHA256.new)

    fallback = _hash._oneshot_of(OldSHA256)
    assert fallback is not SHA256.new
    for data in (b"", b'{"x":1}', bytes(range(256)) * 10):
        assert fallback(data) == SHA256.new(data).digest() == _hash.oneshot("sha256")(data)


# ---------------------------------------------------------------------------------------------------
# The three representations
# ---------------------------------------------------------------------------------------------------

HEX64 = "0123456789abcdef" * 4
HEX96 = "0123456789abcdef" * 6


@pytest.mark.parametrize(
    "value,algorithm,hexpart",
    [
        ("sha256:" + HEX64, "sha256", HEX64),
        ("sha384:" + HEX96, "sha384", HEX96),
    ],
)
def test_parse_digest_accepts(value, algorithm, hexpart):
    parsed = parse_digest(value)
    assert parsed == ParsedDigest(algorithm, hexpart)
    assert parsed.raw == bytes.fromhex(hexpart)
    assert render_digest(parsed.algorithm, parsed.raw) == value


BAD_PREFIXED = {
    "uppercase hex": "sha256:" + HEX64.upper(),
    "one uppercase digit": "sha256:" + HEX64[:-1] + "F",
    "short": "sha256:" + HEX64[:-1],
    "long": "sha256:" + HEX64 + "0",
    "sha384 length under sha256": "sha256:" + HEX96,
    "sha256 length under sha384": "sha384:" + HEX64,
    "empty hex": "sha256:",
    "bare hex (missing prefix)": HEX64,
    "bare sha384 hex": HEX96,
    "empty": "",
    "colon only": ":" + HEX64,
    "unknown prefix sha512": "sha512:" + HEX64 * 2,
    "uppercase prefix": "SHA256:" + HEX64,
    "dashed prefix": "sha-256:" + HEX64,
    "leading space": " sha256:" + HEX64,
    "trailing space": "sha256:" + HEX64 + " ",
    "trailing newline": "sha256:" + HEX64 + "\n",
    "space after colon": "sha256: " + HEX64,
    "tab inside": "sha256:" + HEX64[:10] + "\t" + HEX64[10:],
    "no-break space": "sha256:" + HEX64 + "\u00a0",
    "double prefix": "sha256:sha256:" + HEX64,
    "0x prefix": "sha256:0x" + HEX64[2:],
    "fullwidth digit": "sha256:" + HEX64[:-1] + "\uff10",
    "arabic-indic digit": "sha256:" + HEX64[:-1] + "\u0663",
    "non-hex letter": "sha256:" + HEX64[:-1] + "g",
}


@pytest.mark.parametrize("value", BAD_PREFIXED.values(), ids=BAD_PREFIXED.keys())
def test_parse_digest_refuses(value):
    with pytest.raises(InvalidDigestError):
        parse_digest(value)


def test_trailing_newline_is_a_real_trap():
    """The newline case catches the classic `^...$` regex, which accepts a trailing newline."""
    naive = re.compile(r"^sha256:[0-9a-f]{64}$")
    assert naive.match(BAD_PREFIXED["trailing newline"]) is not None


@pytest.mark.parametrize(
    "value", [("sha256:" + HEX64).encode(), bytearray(32), bytes(32), memoryview(bytes(32)), None, 5]
)
def test_parse_digest_refuses_non_str(value):
    with pytest.raises(TypeError):
        parse_digest(value)


def test_parse_digest_never_adds_a_prefix():
    with pytest.raises(InvalidDigestError, match="bare hex"):
        parse_digest(HEX64)


def test_parse_hex_digest():
    assert parse_hex_digest(HEX64) == HEX64
    for bad in (
        HEX64.upper(),
        HEX64[:-1],
        HEX64 + "0",
        HEX96,
        "sha256:" + HEX64,
        HEX64 + "\n",
        " " + HEX64,
        "",
        HEX64[:-1] + "\uff10",
    ):
        with pytest.raises(InvalidDigestError):
            parse_hex_digest(bad)
    for bad in (bytes(32), HEX64.encode(), None):
        with pytest.raises(TypeError):
            parse_hex_digest(bad)


def test_parse_hex_digest_never_strips_a_prefix():
    with pytest.raises(InvalidDigestError, match="prefixed"):
        parse_hex_digest("sha256:" + HEX64)


def test_render_digest_takes_raw_bytes_only():
    raw = bytes(range(32))
    assert render_digest("sha256", raw) == "sha256:" + raw.hex()
    assert render_digest("sha256", bytearray(raw)) == "sha256:" + raw.hex()
    for not_bytes in (raw.hex(), "sha256:" + raw.hex(), 5, None):
        with pytest.raises(TypeError):
            render_digest("sha256", not_bytes)
    for wrong_length in (raw[:-1], raw + b"\0", bytes(48)):
        with pytest.raises(InvalidDigestError):
            render_digest("sha256", wrong_length)
    with pytest.raises(InvalidDigestError):
        render_digest("sha384", raw)


# ---------------------------------------------------------------------------------------------------
# The batch API
# ---------------------------------------------------------------------------------------------------


@fixture_ok
@given(objs=st.lists(json_values, max_size=8), algorithm=st.sampled_from(["sha256", "sha384"]))
def test_digest_many_equals_a_loop(backend, objs, algorithm):
    assert digest_many(objs, algorithm) == [reference(o, algorithm) for o in objs]


def test_digest_many_takes_any_iterable(backend):
    objs = [{"i": i} for i in range(5)]
    assert digest_many(iter(objs)) == digest_many(tuple(objs)) == [reference(o) for o in objs]
    assert digest_many([]) == []


@pytest.mark.parametrize(
    "bad,cls",
    [
        ({1: "x"}, UnsupportedTypeError),
        (2**53, IntegerDomainError),
        (float("nan"), FloatDomainError),
        ({"s": "\ud800"}, CanonicalizationError),
    ],
)
def test_digest_many_raises_the_first_error_with_its_index(backend, bad, cls):
    objs = [{"ok": 1}, [], bad, {2: "also bad"}, float("inf")]
    with pytest.raises(cls) as info:
        digest_many(objs)
    assert info.value.index == 2


def test_digest_many_error_index_zero(backend):
    with pytest.raises(UnsupportedTypeError) as info:
        digest_many([set()])
    assert info.value.index == 0


def test_single_digest_errors_have_no_index(backend):
    with pytest.raises(UnsupportedTypeError) as info:
        digest(set())
    assert info.value.index is None


JSONL = b'{"b": 2, "a": 1}\n{"a": 1,}\n\n[1.0, "\\u20ac"]\r\n{"k": 1, "k": 2}\n1e400\n12345678901234567890\n'


def test_digest_texts_one_result_per_line(backend):
    lines = JSONL.splitlines(keepends=True)
    results = digest_texts(lines)
    assert len(results) == len(lines)
    assert results[0] == reference({"a": 1, "b": 2})
    assert results[3] == reference([1, "\u20ac"])
    assert results[6] == reference(12345678901234567890.0)
    expected_errors = {1: InvalidJSONError, 2: InvalidJSONError, 4: DuplicateKeyError, 5: FloatDomainError}
    for index, cls in expected_errors.items():
        err = results[index]
        assert type(err) is cls, (index, err)
        assert err.index == index
        assert err.__traceback__ is None
    # positions are relative to the item, not to the batch
    assert results[1].offset == 8 and results[1].lineno == 1 and results[1].colno == 9
    assert results[4].key == "k"


def test_digest_texts_strict_integers_and_algorithm(backend):
    results = digest_texts([b"12345678901234567890", "[1]"], "sha384", strict_integers=True)
    assert type(results[0]) is IntegerDomainError and results[0].index == 0
    assert results[1] == reference([1], "sha384")


def test_digest_texts_agrees_with_digest_text(backend):
    texts = [b"{}", "\u20ac".join(['["', '"]']), bytearray(b"[true]"), memoryview(b"null")]
    assert digest_texts(texts) == [digest_text(t) for t in texts]


def test_digest_texts_refuses_a_non_text_item_for_the_whole_call(backend):
    with pytest.raises(TypeError, match="item 1"):
        digest_texts([b"{}", {"not": "text"}])


# ---------------------------------------------------------------------------------------------------
# The backends: both, same private functions, same signatures
# ---------------------------------------------------------------------------------------------------


def test_backend_batch_signatures(backend):
    assert list(inspect.signature(backend.digest_many).parameters) == [
        "objs",
        "max_depth",
        "algorithm",
        "integers_only",
        "default",
    ]
    assert list(inspect.signature(backend.digest_texts).parameters) == [
        "texts",
        "max_depth",
        "strict_integers",
        "algorithm",
        "integers_only",
    ]


def test_backend_batch_returns_raw_digests(backend):
    objs = [{"x": 1}, ["\U0001f602"]]
    raws = backend.digest_many(objs, 100, "sha384")
    assert raws == [SHA384.new(rfc8785.dumps(o)).digest() for o in objs]
    out = backend.digest_texts([b"[1]", b"[", b"{}"], 100, False, "sha256")
    assert out[0] == SHA256.new(b"[1]").digest() and out[2] == SHA256.new(b"{}").digest()
    assert isinstance(out[1], InvalidJSONError) and out[1].index == 1


# ---------------------------------------------------------------------------------------------------
# digests_equal: bare hex against sha256:-prefixed, without string glue
# ---------------------------------------------------------------------------------------------------


def test_digests_equal_across_representations():
    from Crypto.Hash import SHA256

    h = SHA256.new(b'{"a":1}').hexdigest()
    assert fastjcs.digests_equal(h, "sha256:" + h) and fastjcs.digests_equal("sha256:" + h, h)
    assert fastjcs.digests_equal(h, h)
    assert not fastjcs.digests_equal(h, "sha256:" + "0" * 64)
    assert not fastjcs.digests_equal("sha384:" + "ab" * 48, "ab" * 32)


@pytest.mark.parametrize(
    "bad",
    [
        "sha512:" + "ab" * 32,
        "SHA256:" + "ab" * 32,
        "AB" * 32,
        "ab" * 31,
        " " + "ab" * 32,
        "sha256:" + "ab" * 31,
        "md5:" + "ab" * 16,
        "",
    ],
)
def test_digests_equal_refuses_what_it_cannot_read(bad):
    with pytest.raises(fastjcs.InvalidDigestError):
        fastjcs.digests_equal(bad, "ab" * 32)
    with pytest.raises(fastjcs.InvalidDigestError):
        fastjcs.digests_equal("ab" * 32, bad)
    with pytest.raises(TypeError):
        fastjcs.digests_equal(b"ab" * 32, "ab" * 32)
