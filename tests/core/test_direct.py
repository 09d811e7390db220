"""The direct entry (fastjcs._direct, csrc/cpython/direct.c): the same answers and exceptions as the
cffi route (the marshal reader) and the pure-Python backend, on the values it reads itself and on
those it leaves to Python; hooks run once; no reference or memory is leaked.

Expected values are the pure-Python backend's (itself held to rfc8785 by test_dumps_differential)
and independent arithmetic; the walker is also compared with the marshal route of the same
backend, which reads marshal's copy of the value rather than the value itself.
"""

from __future__ import annotations

import enum
import gc
import resource
import sys
from collections import OrderedDict

import pytest
from _direct import direct_or_skip
from _markers import rss_is_meaningful
from hypothesis import given
from hypothesis import strategies as st

import fastjcs
from fastjcs.core import api, python_backend

native, _ = direct_or_skip()

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF)),  # lone surrogates too
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=8) | st.integers(0, 3), inner, max_size=6)
    ),
    max_leaves=40,
)


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc))


@given(json_values, st.integers(0, 6), st.booleans())
def test_walker_agrees_with_the_marshal_route_and_python(value, depth, integers_only):
    walker = outcome(native.dumps, value, depth, integers_only)
    assert walker == outcome(native._dumps_marshal, value, depth, integers_only)
    assert walker == outcome(python_backend.dumps, value, depth, integers_only)


class Hooked(int):
    calls = 0

    def __int__(self):
        type(self).calls += 1
        return 7


class HookedFloat(float):
    calls = 0

    def __float__(self):
        type(self).calls += 1
        return 0.5


class Colour(enum.IntEnum):
    RED = 1


class Name(str):
    pass


class Fraction(float):
    pass


@pytest.mark.parametrize(
    "value, expected",
    [
        (Colour.RED, b"1"),  # an int subclass without a hook of its own: read by the walker
        (Name("\u00e9"), b'"\xc3\xa9"'),
        (Fraction(0.25), b"0.25"),
        (OrderedDict([("b", 1), ("a", 2)]), b'{"a":2,"b":1}'),  # container subclasses: Python's copy
        ({"k": [Colour.RED, (True, None)]}, b'{"k":[1,[true,null]]}'),
    ],
)
def test_subclasses(value, expected):
    assert native.dumps(value, 100) == expected == python_backend.dumps(value, 100)


def test_a_hook_runs_once_and_its_answer_is_used():
    Hooked.calls = HookedFloat.calls = 0
    assert fastjcs.dumps({"a": [Hooked(3)], "b": HookedFloat(2.0)}) == b'{"a":[7],"b":0.5}'
    assert (Hooked.calls, HookedFloat.calls) == (1, 1)
    # ... and once again when the value is refused after the hook (the walker ran none of it)
    Hooked.calls = 0
    with pytest.raises(fastjcs.FloatDomainError):
        fastjcs.dumps([Hooked(3), float("nan")])
    assert Hooked.calls <= 1


def test_keys_that_are_str_subclasses_equal_as_str():
    class Loud(str):
        def __hash__(self):
            return 1

        def __eq__(self, other):
            return self is other

    value = {Loud("a"): 1, "a": 2}
    assert outcome(native.dumps, value, 10) == outcome(python_backend.dumps, value, 10)


@pytest.mark.parametrize("depth", [1, 31, 32, 33, 100, 3000])
def test_cycles_at_every_depth_are_refused(depth):
    root: list = []
    node = root
    for _ in range(depth - 1):
        node.append([])
        node = node[0]
    node.append(root)
    with pytest.raises(fastjcs.CircularReferenceError):
        fastjcs.dumps(root, max_depth=10**6)
    # a shared value that is not a cycle is written each time it appears
    shared = [1]
    deep = [shared]
    for _ in range(depth):
        deep = [deep, shared]
    assert fastjcs.dumps(deep, max_depth=10**6) == python_backend.dumps(deep, 10**6)


def test_depth_limit_and_big_numbers():
    assert fastjcs.dumps([[[]]], max_depth=3) == b"[[[]]]"
    with pytest.raises(fastjcs.DepthLimitError):
        fastjcs.dumps([[[{}]]], max_depth=3)
    assert fastjcs.dumps([2**53 - 1, -(2**53 - 1)]) == b"[9007199254740991,-9007199254740991]"
    for big in (2**53, -(2**53), 2**64, 10**400):
        with pytest.raises(fastjcs.IntegerDomainError):
            fastjcs.dumps({"a": big})
    with pytest.raises(fastjcs.NonIntegerNumberError):
        fastjcs.dumps([1, 1.0], integers_only=True)
    with pytest.raises(fastjcs.UnsupportedTypeError):
        fastjcs.dumps({1: 2})
    with pytest.raises(fastjcs.CanonicalizationError):
        fastjcs.dumps({"\ud800": 1})


def test_texts_on_both_sides_of_the_threshold(monkeypatch, held_text, swap_backend):
    swap_backend(native)  # the public functions on it, whichever FASTJCS_BACKEND chose
    text = b'{"b": [1.0, "\\u00e9"], "a": 1E2}'
    small = native.canonicalize(text, 100, False)
    held_text(4)  # every text now goes through cffi
    direct_canonicalize, answers = native._direct_canonicalize, []
    monkeypatch.setattr(native, "_direct_canonicalize", lambda *args: answers.append(direct_canonicalize(*args)))
    assert native.canonicalize(text, 100, False) == small == b'{"a":100,"b":[1,"\xc3\xa9"]}'
    # the public function's C path declines the long text too, and hands it to the backend
    assert fastjcs.canonicalize(text) == small
    assert answers == [None, None]
    monkeypatch.setattr(native, "_direct_canonicalize", direct_canonicalize)
    for bad in (b'{"a":1,"a":2}', b"[1,", b"\xff"):
        cffi_error = outcome(native.canonicalize, bad, 100, False)
        held_text(1 << 20)
        assert outcome(native.canonicalize, bad, 100, False) == cffi_error
        assert outcome(native.digest_text, bad, 100, False, "sha256") == cffi_error
        held_text(4)
    held_text(1 << 20)
    assert fastjcs.digest_text(text) == fastjcs.digest({"a": 100, "b": [1, "\u00e9"]})


def test_the_held_text_limit_is_the_direct_entrys_own(held_text):
    """The limit lives in C (csrc/cpython/direct.h, FJCS_HELD_TEXT: 8 MiB), read by no Python
    name; held_text_limit sets it and says what it was, and refuses what is not a size."""
    assert native._direct.held_text_limit() == 8 << 20
    assert native._direct.held_text_limit(10) == 8 << 20
    assert native._direct.held_text_limit() == 10
    for bad in (-1, "10", 1.5):
        with pytest.raises((TypeError, OverflowError)):
            native._direct.held_text_limit(bad)
    assert native._direct.held_text_limit() == 10  # a refused value leaves it as it was
    assert native._direct.backend_canonicalize(b"[1,2,3,4,5]", 5, 0) is None  # 11 bytes: not parsed here
    assert native._direct.backend_canonicalize(b"[1,2]", 5, 0) == b"[1,2]"


REFUSED_TEXTS = [
    b'{"a":1,"a":2}',
    b'{"z":{"y":1,"y":2},"a":1}',
    b"[1,",
    b"\xff",
    b"01",
    b'["\\ud800"]',
    b"[1e400]",
    b"[9007199254740993]",
    b"[[[[[1]]]]]",
    b'{"a" 1}',
    b"[tru]",
    b"",
]


@pytest.mark.parametrize("text", REFUSED_TEXTS)
def test_a_refused_text_is_parsed_once_and_worded_from_its_record(monkeypatch, text):
    """The direct entry answers a refused text with its error record, which native_errors words:
    the text is parsed once. Before, the refusal carried nothing and the text was parsed again by
    cffi's entry for the record (and digest_text parsed it a third time). Parser entries are
    counted where Python reaches them: the direct entry's canonicalize, and cffi's (_run_text),
    which must not be reached at all. The error equals the pure-Python backend's."""
    entries = []
    direct_canonicalize = native._direct_canonicalize

    def counted(*args):
        entries.append(args[0])
        return direct_canonicalize(*args)

    def cffi_entry(*args):
        raise AssertionError("parsed again through cffi")

    monkeypatch.setattr(native, "_direct_canonicalize", counted)
    monkeypatch.setattr(native, "_run_text", cffi_entry)
    refused = 0
    for strict in (False, True):  # [9007199254740993] is refused only with strict_integers
        expected = outcome(python_backend.canonicalize, text, 4, strict)
        if expected[0] != "error":
            continue
        refused += 1
        entries.clear()
        assert outcome(native.canonicalize, text, 4, strict) == expected
        assert entries == [text]
        assert outcome(native.digest_text, text, 4, strict, "sha256") == expected
    assert refused
    # The public function's C fast path words the error from the record too: no Python
    # canonicalize (api's, the backend's) runs to read the text again.
    expected = outcome(python_backend.canonicalize, text, fastjcs.DEFAULT_MAX_DEPTH, False)
    if expected[0] == "error":
        frames = _python_frames(outcome, fastjcs.canonicalize, text)
        assert "canonicalize" not in frames and "refused_text" in frames
        assert outcome(fastjcs.canonicalize, text) == expected


def _python_frames(fn, *args, **kwargs):
    """The Python functions that ran during fn(*args, **kwargs), by name (sys.setprofile)."""
    names = []

    def profile(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        fn(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return names


def test_dumps_with_keywords_makes_one_crossing():
    """fastjcs.dumps(x, default=f) and its other keywords are the direct entry's own call (issue
    33): no Python frame runs between the caller and the walker, and the walker calls default
    itself. Before, the call went C -> api.dumps (Python) -> C -> the walker."""
    import datetime

    def stamp(value):
        return value.isoformat()

    value = {"when": datetime.date(2026, 12, 3), "n": [1, 2]}
    assert _python_frames(fastjcs.dumps, value, default=stamp) == ["stamp"]
    assert _python_frames(fastjcs.dumps, value, default=stamp, max_depth=5, integers_only=True) == ["stamp"]
    assert _python_frames(fastjcs.dumps, [1], max_depth=3) == []
    # a call the C function does not take (a flag that is not a bool) is the Python function's
    assert "dumps" in _python_frames(fastjcs.dumps, [1], integers_only=1)


def test_a_swap_of_the_backend_reaches_the_public_c_functions(swap_backend, monkeypatch):
    """fastjcs.core.backends.use is the one way to swap the backend, and the public C functions
    follow it without reading any Python name: swapped to the Python backend, they hand every call
    to the API's Python functions (a copy of fastjcs.dumps taken before the swap too); swapped
    back, they serve calls themselves again. A C function that ignored the swap would answer b"[1]"
    where the Python backend's stand-ins answer their names."""
    if fastjcs.dumps is api._python_dumps:
        pytest.skip("FASTJCS_BACKEND chose the Python backend at import: the public functions are Python's")
    from fastjcs import canonicalize, digest, digest_text, dumps, format_double  # copies taken before the swap

    names = ("dumps", "canonicalize", "format_double", "digest", "digest_text")
    digest([1])  # sha256 registered: the C function serves it
    calls = []
    for name in names:
        monkeypatch.setattr(python_backend, name, lambda *args, name=name: calls.append(name) or name)
    assert swap_backend(python_backend) is native
    assert fastjcs.backend() == "python"
    got = (dumps([1]), canonicalize(b"[1]"), format_double(1.5), digest([1]), digest_text(b"[1]"))
    assert got == names
    assert (fastjcs.dumps([1], max_depth=3), fastjcs.canonicalize(b"[1]", strict_integers=True)) == (
        "dumps",
        "canonicalize",
    )
    assert calls == [*names, "dumps", "canonicalize"]
    assert swap_backend(native) is python_backend
    got = (dumps([1]), canonicalize(b"[1]"), format_double(1.5), digest([1]), digest_text(b"[1]"))
    assert got == (b"[1]", b"[1]", "1.5", *[native.digest([1], 10, "sha256")] * 2)
    assert _python_frames(dumps, {"b": 1, "a": 2}) == [] and _python_frames(canonicalize, b"[1]") == []
    assert calls == [*names, "dumps", "canonicalize"]
    # serve_public says what it replaced
    assert native._direct.serve_public(False) is True
    assert native._direct.serve_public(True) is False


def test_the_direct_entry_and_the_api_agree_on_the_default_depth():
    """The C functions' default max_depth (FJCS_DEFAULT_MAX_DEPTH) is the API's, and a call that
    gives none is refused at one level past it, as the Python function refuses."""
    assert native._direct.DEFAULT_MAX_DEPTH == fastjcs.DEFAULT_MAX_DEPTH
    deep = []
    for _ in range(fastjcs.DEFAULT_MAX_DEPTH):
        deep = [deep]
    assert outcome(fastjcs.dumps, deep) == outcome(api._python_dumps, deep)
    assert outcome(fastjcs.dumps, [deep])[0] == "error"
    assert outcome(fastjcs.dumps, [deep]) == outcome(api._python_dumps, [deep])


class Truth:
    """A flag whose truth is Python code: asked once, whoever asks."""

    def __init__(self, value):
        self.value, self.asked = value, 0

    def __bool__(self):
        self.asked += 1
        return self.value


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"max_depth": 2},
        {"max_depth": 0},
        {"max_depth": 2**80},
        {"max_depth": -1},
        {"max_depth": True},
        {"max_depth": 2.0},
        {"integers_only": True},
        {"integers_only": False},
        {"integers_only": 1},
        {"integers_only": None},
        {"default": repr},
        {"default": None},
        {"default": 3},
        {"default": repr, "integers_only": True, "max_depth": 3},
        {"max_depth": -1, "default": 3},
        {"bogus": 1},
        {"obj": 1},
    ],
)
def test_keyword_calls_answer_as_the_python_function(kwargs):
    """Every keyword call of fastjcs.dumps answers what api.dumps, the Python function, answers:
    the same bytes, or the same exception and message for a wrong argument."""

    for value in ({"a": [1, 2.5, {"b": [[None]]}]}, [3 + 4j], [2**60], {"x": float("nan")}):
        got = outcome(lambda v=value: fastjcs.dumps(v, **kwargs))
        assert got == outcome(lambda v=value: api._python_dumps(v, **kwargs))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"max_depth": 1},
        {"max_depth": 2**80},
        {"max_depth": -1},
        {"max_depth": None},
        {"strict_integers": True},
        {"strict_integers": 1},
        {"integers_only": True},
        {"integers_only": False, "strict_integers": True, "max_depth": 2},
        {"bogus": 1},
    ],
)
def test_canonicalize_keyword_calls_answer_as_the_python_function(kwargs):

    for text in (b'{"b":[1.5,{"c":[2]}],"a":9007199254740993}', b"[1,]", b'{"a":1,"a":2}', "[1]", bytearray(b"[2]")):
        got = outcome(lambda t=text: fastjcs.canonicalize(t, **kwargs))
        assert got == outcome(lambda t=text: api._python_canonicalize(t, **kwargs))
    assert _python_frames(fastjcs.canonicalize, b"[1.0]", max_depth=3, strict_integers=True) == []


DIGEST_CALLS = [
    ((), {}),
    (("sha384",), {}),
    ((), {"algorithm": "sha384"}),
    (("sha384",), {"algorithm": "sha256"}),  # given twice: TypeError
    (("SHA256",), {}),
    (("sha-256",), {}),
    ((5,), {}),
    ((None,), {}),
    (("sha256", "x"), {}),
    ((), {"max_depth": 2}),
    ((), {"max_depth": 2**80}),
    ((), {"max_depth": -1}),
    ((), {"max_depth": 2.0}),
    ((), {"integers_only": True}),
    ((), {"integers_only": 1}),
    ((), {"bogus": 1}),
    (("md5",), {"max_depth": -1}),  # the algorithm is checked first
]


@pytest.mark.parametrize("args, kwargs", DIGEST_CALLS + [((), {"default": repr}), ((), {"default": 3})])
def test_digest_calls_answer_as_the_python_function(args, kwargs):
    """Every call of the public digest (the direct entry's C function once sha256 and sha384 are
    registered) answers what digests.digest, the Python function, answers: the same digest, or the
    same exception and message. Expected digests of the valid calls are pycryptodome's hash of the
    Python backend's canonical bytes."""
    from Crypto.Hash import SHA256, SHA384

    from fastjcs.core import digests

    fastjcs.digest({}), fastjcs.digest({}, "sha384")  # registered (native_hash does it on first use)
    for value in ({"a": [1, 2.5, {"b": [[None]]}]}, [3 + 4j], [2**60], {"x": float("nan")}, [[[[1]]]]):
        got = outcome(lambda v=value: fastjcs.digest(v, *args, **kwargs))
        assert got == outcome(lambda v=value: digests._python_digest(v, *args, **kwargs))
        if got[0] == "ok":
            alg, hexpart = got[1].split(":")
            canonical = python_backend.dumps(value, kwargs.get("max_depth", 10_000), False, kwargs.get("default"))
            assert hexpart == {"sha256": SHA256, "sha384": SHA384}[alg].new(canonical).hexdigest()


@pytest.mark.parametrize("args, kwargs", DIGEST_CALLS + [((), {"strict_integers": True}), ((), {"strict_integers": 2})])
def test_digest_text_calls_answer_as_the_python_function(args, kwargs):
    from fastjcs.core import digests

    kwargs = {k: v for k, v in kwargs.items() if k != "integers_only" or "strict_integers" not in kwargs}
    fastjcs.digest({}), fastjcs.digest({}, "sha384")
    for text in (b'{"b":[1.5,{"c":[2]}],"a":9007199254740993}', b"[1,]", b'{"a":1,"a":2}', "[1]", b"[[[[1]]]]"):
        got = outcome(lambda t=text: fastjcs.digest_text(t, *args, **kwargs))
        assert got == outcome(lambda t=text: digests._python_digest_text(t, *args, **kwargs))


def test_digests_make_one_crossing():
    """Once an algorithm is registered, fastjcs.digest and digest_text of bytes run no Python frame
    (default= only the callback's): before, digests.digest and native_backend.digest ran."""
    import datetime

    def stamp(value):
        return value.isoformat()

    fastjcs.digest({})
    assert _python_frames(fastjcs.digest, {"b": 1, "a": [2.5]}) == []
    assert _python_frames(fastjcs.digest, {"when": datetime.date(2026, 12, 3)}, default=stamp) == ["stamp"]
    assert _python_frames(fastjcs.digest_text, b'{"b":1,"a":[2.5]}', strict_integers=True) == []
    # a refused text: worded from the record, no Python digest function reads it again
    frames = _python_frames(outcome, fastjcs.digest_text, b'{"a":1,"a":2}')
    assert "refused_text" in frames and not {"digest_text", "canonicalize"} & set(frames)


class Sink:
    """A binary stream that keeps what each write was given (dump writes its bytes whole)."""

    def __init__(self):
        self.writes = []

    def write(self, data):
        self.writes.append(data)
        return len(data)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"max_depth": 2}, {"max_depth": -1}, {"integers_only": True}, {"integers_only": 1}, {"default": repr}]
    + [{"default": 3}, {"bogus": 1}],
)
def test_dump_calls_answer_as_the_python_function(kwargs):
    """fastjcs.dump (the direct entry's C function) writes what api.dump, the Python function,
    writes, in one write, or raises the same exception and writes nothing; a stream without write
    is refused before the value is read, as fp.write(...) looks write up first."""
    for value in ({"b": [1, 2.5], "a": None}, [3 + 4j], [2**60], {"x": float("nan")}, [[[1]]]):
        got, want = Sink(), Sink()
        assert outcome(lambda v=value, f=got: fastjcs.dump(v, f, **kwargs)) == outcome(
            lambda v=value, f=want: api._python_dump(v, f, **kwargs)
        )
        assert got.writes == want.writes and len(got.writes) <= 1
        if got.writes:
            canonical = python_backend.dumps(value, kwargs.get("max_depth", 10_000), False, kwargs.get("default"))
            assert got.writes == [canonical]
    assert outcome(fastjcs.dump, {"x": float("nan")}, object()) == outcome(
        api._python_dump, {"x": float("nan")}, object()
    )
    assert outcome(fastjcs.dump, [1], object())[1] == "AttributeError"
    assert _python_frames(fastjcs.dump, {"b": 1, "a": [2.5]}, Sink()) == ["write"]


def _many_outcome(fn, objs, *args, **kwargs):
    """outcome, with a CanonicalizationError's index (digest_many names the failing item)."""
    try:
        return ("ok", fn(objs, *args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc), getattr(exc, "index", None))


@pytest.mark.parametrize(
    "args, kwargs",
    DIGEST_CALLS + [((), {"default": repr}), ((), {"default": 3}), (("sha384",), {"integers_only": True})],
)
def test_digest_many_calls_answer_as_the_python_function(args, kwargs):
    """fastjcs.digest_many (the direct entry's C function) answers what digests.digest_many, the
    Python function, answers: the same digests, or the same exception, message and index, for a
    refused item among digested ones too, a value C leaves to Python (a subclass of list), and a
    batch that is not a list. Digests are pycryptodome's hashes of the Python backend's bytes."""
    from Crypto.Hash import SHA256, SHA384

    from fastjcs.core import digests

    class Items(list):
        pass

    fastjcs.digest({}), fastjcs.digest({}, "sha384")
    batches = (
        [{"a": [1, 2.5]}, [2**60], Items([1]), [[[[1]]]]],
        [{"a": 1}, [3 + 4j], [1]],
        [[1], {"x": float("nan")}, [2]],
        ([1], {"b": 2}),
        [],
        "[1]",
    )
    for batch in batches:
        got = _many_outcome(fastjcs.digest_many, batch, *args, **kwargs)
        assert got == _many_outcome(digests._python_digest_many, batch, *args, **kwargs)
        if got[0] == "ok":
            for value, rendered in zip(batch, got[1]):
                alg, hexpart = rendered.split(":")
                canonical = python_backend.dumps(value, kwargs.get("max_depth", 10_000), False, kwargs.get("default"))
                assert hexpart == {"sha256": SHA256, "sha384": SHA384}[alg].new(canonical).hexdigest()


def test_digest_many_makes_one_crossing_and_walks_each_item_once(monkeypatch):
    """A list with a registered algorithm runs no Python frame; an item the walker refuses goes,
    with the rest, to native_backend.digest_many_rest with the digests made so far: the Python
    function (digests.digest_many) does not run, and the per-item path starts after that item,
    which is finished from where its walk stopped (a hand-over of the whole call would start at 0,
    walking the digested items again)."""
    fastjcs.digest({})
    assert _python_frames(fastjcs.digest_many, [{"b": 1, "a": [2.5]}, [1]]) == []
    starts = []
    each = native._digest_each
    monkeypatch.setattr(
        native, "_digest_each", lambda objs, start, *rest: starts.append(start) or each(objs, start, *rest)
    )
    batch = [[1], [2], {"x": float("nan")}, [3]]
    frames = _python_frames(_many_outcome, fastjcs.digest_many, batch)
    assert "digest_many_rest" in frames and "digest_many" not in frames
    assert starts == [] and _many_outcome(fastjcs.digest_many, batch)[3] == 2  # raised at the item itself
    assert _many_outcome(fastjcs.digest_many, [[1], [2], [3]])[0] == "ok" and starts == []
    assert _many_outcome(fastjcs.digest_many, [[1], [2], ListLike([3]), [4]])[0] == "ok"
    assert starts == [3]  # the items after the one the walk stopped at


class ListLike(list):
    """A list subclass: the walker leaves it to the Python side (BAIL), which goes on from it."""


@pytest.mark.parametrize("integers_only", [False, True])
def test_digest_many_walks_the_item_it_stops_at_once(monkeypatch, integers_only):
    """The item the batch walk stops at is finished by python_backend.resume from where the walk
    stopped (issue 33): neither the per-item path (native.dumps, a C walk from the item's start)
    nor the Python backend's dumps reads it again; only the items after it go one by one. Before,
    it was walked three times: by the batch walk, by native.dumps (counted: 1 per stopped item),
    then by resume. The answer, exception, message and index are the Python function's, through
    the public function and through the backend's digest_many (raw and rendered)."""
    from fastjcs.core import digests

    fastjcs.digest({})
    walks = []  # the items walked again from their start
    native_dumps, python_dumps = native.dumps, python_backend.dumps

    def again(whole):
        return lambda obj, *args, **kwargs: walks.append(obj) or whole(obj, *args, **kwargs)

    refused = {"a": [1, {"b": "x"}], "z": float("nan"), "m": [2**60, "\ud800"]}
    deep = {"d": [[[[[[1]]]]]]}
    bail = ListLike([{"b": 1, "a": 2}])
    huge = [1.5, 3]  # refused under integers_only only
    batches = [  # (batch, max_depth, the items after the stop)
        ([[1], [2], refused, [3]], 100, []),
        ([[1], deep, [3]], 5, []),
        ([[1], bail, [3], {"k": [4]}], 100, [[3], {"k": [4]}]),  # digested: the rest go one by one
        ([huge, [3]], 100, [] if integers_only else None),
    ]
    for batch, depth, after in batches:
        expected = _many_outcome(digests._python_digest_many, batch, max_depth=depth, integers_only=integers_only)
        monkeypatch.setattr(native, "dumps", again(native_dumps))
        monkeypatch.setattr(python_backend, "dumps", again(python_dumps))
        calls = [
            lambda objs: fastjcs.digest_many(objs, max_depth=depth, integers_only=integers_only),  # noqa: B023
            lambda objs: native.digest_many_rendered(objs, depth, "sha256", integers_only),  # noqa: B023
            lambda objs: [f"sha256:{raw.hex()}" for raw in native.digest_many(objs, depth, "sha256", integers_only)],  # noqa: B023
        ]
        for call in calls:  # (each called within this turn of the loop)
            walks.clear()
            got = _many_outcome(call, batch)
            if after is None:  # no item stops the walk
                assert got[0] == "ok" and walks == []
                continue
            assert walks == after
            assert got == expected
        monkeypatch.setattr(native, "dumps", native_dumps)
        monkeypatch.setattr(python_backend, "dumps", python_dumps)
    assert _many_outcome(fastjcs.digest_many, [[1], refused])[3] == 1


def test_any_first_digest_registers_its_algorithm():
    """In a fresh process whose first digest has default= (a path that did not need the C
    hasher before), that call registers sha256, and the next is the C function's alone. A
    registration made only on the plain path would leave every default= call handed over."""
    import subprocess

    code = (
        "import sys, datetime, fastjcs\n"
        "def stamp(v): return v.isoformat()\n"
        "value = {'when': datetime.date(2026, 12, 3)}\n"
        "first = fastjcs.digest(value, default=stamp)\n"
        "names = []\n"
        "sys.setprofile(lambda frame, event, arg: names.append(frame.f_code.co_name) if event == 'call' else None)\n"
        "second = fastjcs.digest(value, default=stamp)\n"
        "sys.setprofile(None)\n"
        "print(names, first == second)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['stamp']", "True"]


def test_register_hasher_refuses_what_is_not_a_hasher():
    direct = native._direct
    for bad in (("sha256", 0, 32, b"sha256:"), (b"sha256", 1, 32, b"x"), ("x", 1, 32, "x:"), ("x", 1, 10**6, b"x:")):
        with pytest.raises((TypeError, ValueError)):
            direct.register_hasher(*bad)
    with pytest.raises(TypeError):
        direct.register_hasher("x", 1, 32)


def test_a_digest_whose_default_registers_its_algorithm_again_is_unharmed():
    """default= is Python code run in the middle of a digest that holds the algorithm's entry: a
    registration of that algorithm made from there (a bogus function, a different prefix) must
    not replace the entry under the walk, nor later, since registration is once per algorithm."""
    fastjcs.digest({})
    direct = native._direct
    expected = fastjcs.digest({"a": "x" * 100})

    def reregister(value):
        direct.register_hasher("sha256", 1, 32, b"bogus:" + b"y" * 200)
        gc.collect()
        return "x" * 100

    assert fastjcs.digest({"a": object()}, default=reregister) == expected
    assert fastjcs.digest({"a": "x" * 100}) == expected


def test_a_flag_s_truth_is_asked_once():
    flag = Truth(True)
    with pytest.raises(fastjcs.NonIntegerNumberError):
        fastjcs.dumps([1.5], integers_only=flag)
    assert flag.asked == 1


def test_digest_many_stops_at_the_failing_item_with_its_index():
    values = [{"a": 1}, [Colour.RED], OrderedDict(b=2), [float("inf")], {"x": 1}]
    with pytest.raises(fastjcs.FloatDomainError) as info:
        fastjcs.digest_many(values)
    assert info.value.index == 3
    assert fastjcs.digest_many(values[:3]) == [fastjcs.digest(v) for v in values[:3]]


def test_no_reference_is_leaked():
    key, text = "name-" + "x" * 20, "v\u00e9" * 3
    value = {key: [text, 1.5, 2**40, None, (True,)], "b": {"c": text}}
    refused = [text, float("nan")]
    before = (sys.getrefcount(key), sys.getrefcount(text), sys.getrefcount(value), sys.getrefcount(refused))
    for _ in range(10_000):
        fastjcs.dumps(value)
        fastjcs.digest(value)
        with pytest.raises(fastjcs.FloatDomainError):
            fastjcs.dumps(refused)
    fastjcs.digest_many([value] * 3)
    after = (sys.getrefcount(key), sys.getrefcount(text), sys.getrefcount(value), sys.getrefcount(refused))
    assert after == before


@pytest.mark.slow
@rss_is_meaningful
def test_a_million_calls_hold_their_memory():
    value = {"b": ["x" * 100, 1.5, {"z": 1, "a": [None]}], "a": "\u00e9" * 50}
    cyclic: list = []
    cyclic.append(cyclic)

    def calls(n):
        for _ in range(n):
            fastjcs.dumps(value)
            fastjcs.canonicalize(b'{"b":1,"a":2}')
            try:
                fastjcs.dumps(cyclic)
            except fastjcs.CircularReferenceError:
                pass

    calls(50_000)
    gc.collect()
    start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    calls(1_000_000)
    gc.collect()
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start
    # A leak of one object or buffer per call would be tens of MiB over 10^6 calls.
    assert grown_kib < 8 * 1024
