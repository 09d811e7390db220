"""Python code inside a call (issue 32, findings 1 to 3): the direct entry's walker meets a
`__class__` that lies, a finalizer the collector runs during the walk, another thread changing
the value, a call to fastjcs made from inside a call. Every route gives one answer: the right bytes
or a documented exception, never "fastjcs internal error" nor "re-entered".

Expected values: rfc8785's output (it asks isinstance, as the pure-Python backend does), bytes
written out by hand, and the pure-Python backend.
"""

from __future__ import annotations

import gc
import threading
import time

import pytest
import rfc8785
from _direct import native_or_skip

import fastjcs
from fastjcs.core import python_backend
from fastjcs.core._direct_loader import direct, why

native = native_or_skip()


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc))


def claiming(base: type, claimed: type) -> type:
    """A subclass of base whose objects say they are of class `claimed`."""
    return type(f"{base.__name__}Claiming{claimed.__name__}", (base,), {"__class__": property(lambda self: claimed)})


LIARS = [
    (claiming(int, bool)(7), b"true"),
    (claiming(int, bool)(0), b"false"),
    (claiming(str, int)("12"), b"12"),
    (claiming(float, int)(2.75), b"2"),
    # the walker refuses these as what they are; Python takes them as bools (truthy)
    (claiming(str, bool)("\ud800"), b"true"),
    (claiming(float, bool)(float("nan")), b"true"),
    (claiming(int, bool)(2**60), b"true"),
]


@pytest.mark.parametrize("value, expected", LIARS, ids=lambda v: type(v).__name__ if not isinstance(v, bytes) else "")
def test_a_lying_class_gets_one_answer_on_every_route(value, expected):
    doc = {"flag": value, "list": [value]}
    want = b'{"flag":' + expected + b',"list":[' + expected + b"]}"
    assert rfc8785.dumps(doc) == want
    assert python_backend.dumps(doc, 100) == want
    assert native._dumps_marshal(doc, 100) == want  # the cffi route (FASTJCS_DIRECT=0)
    assert native.dumps(doc, 100) == want  # the direct entry, on CPython
    assert fastjcs.dumps(doc) == want
    assert fastjcs.digest(doc) == fastjcs.digest_text(want)
    assert fastjcs.digest_many([doc, [value]]) == [
        fastjcs.digest_text(want),
        fastjcs.digest_text(b"[" + expected + b"]"),
    ]


def test_a_class_claiming_its_own_type_is_read_by_the_walker():
    Honest = type("Honest", (int,), {"__class__": property(lambda self: type(self).__mro__[0])})
    assert fastjcs.dumps([Honest(3)]) == b"[3]" == rfc8785.dumps([Honest(3)])


def test_a_class_whose_class_raises_is_answered_by_python():
    def boom(self):
        raise ValueError("no class")

    Raising = type("Raising", (int,), {"__class__": property(boom)})
    assert outcome(fastjcs.dumps, [Raising(3)]) == outcome(python_backend.dumps, [Raising(3)], 100)


class Mender:
    """In a reference cycle (so only the collector frees it); its finalizer runs `action`."""

    def __init__(self, action):
        self.action = action
        self.me = self

    def __del__(self):
        self.action()


def collect_during_the_walk(action, fn, value):
    """fn(value), with garbage whose finalizer runs `action` and enough live objects that the next
    GC allocation, the UnicodeEncodeError the walker makes for a lone surrogate, runs the
    collector (nothing between gc.enable() and the call allocates one). Its outcome."""
    if direct is None:
        pytest.skip(
            f"the direct entry is not in use ({why}): the reproducer's timing is the direct walker's, whose"
            " first allocation in the call is the walk's; on the cffi route the collector runs elsewhere"
        )
    gc.collect()
    gc.disable()
    Mender(action)
    live = [[] for _ in range(gc.get_threshold()[0] + 900)]  # live lists past gen 0's threshold (700; 3.13: 2000)
    try:
        gc.enable()
        return ("ok", fn(value))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc))
    finally:
        del live
        gc.enable()


SURROGATE_ERROR = ("error", "CanonicalizationError", "string contains a lone surrogate (not UTF-8)")


def test_a_finalizer_that_mends_the_value_mid_walk():
    d = {"k": "\ud800"}
    ran = []

    def mend():
        ran.append(1)
        d["k"] = "fixed"

    # Before the fix: AssertionError "the direct entry refused a value the Python backend accepts".
    # dumps goes on from the value the walker read (its error), and so does digest, which hashes
    # what dumps gives (issue 33: the value is walked once; before, digest read it again, mended).
    assert collect_during_the_walk(mend, fastjcs.dumps, d) == SURROGATE_ERROR
    assert ran == [1]
    d["k"] = "\ud800"
    assert collect_during_the_walk(mend, fastjcs.digest, d) == SURROGATE_ERROR
    assert ran == [1, 1]


@pytest.mark.parametrize("action", ["mend", "clear"])
def test_a_finalizer_that_changes_a_list_at_its_lone_surrogate(action):
    # The walker writes a list's plain items in a loop of its own: the str it refuses is its
    # read, held while it is read (a finalizer run by the exception's allocation may mend or
    # empty the list; without the hold, the refused str would be freed under the walker, which
    # the sanitizer build reports), and the answer is the walker's, as for a dict's member.
    def fresh():  # the refused str made here, so that the list alone holds it
        return ["a", 1, "x" + chr(0xD800), "b"]

    lst = fresh()

    def change():
        if action == "mend":
            lst[2] = "fixed"
        else:
            lst.clear()

    assert collect_during_the_walk(change, fastjcs.dumps, lst) == SURROGATE_ERROR
    lst[:] = fresh()
    assert collect_during_the_walk(change, fastjcs.dumps, {"k": lst}) == SURROGATE_ERROR


def test_a_finalizer_that_calls_fastjcs_mid_walk():
    logged = []
    value = {"k": "\ud800", "a": [1, 2]}
    # before the fix: RuntimeError: fastjcs._direct re-entered, raised in the finalizer (ignored)
    result = collect_during_the_walk(lambda: logged.append(fastjcs.dumps({"logged": 1})), fastjcs.dumps, value)
    assert result == SURROGATE_ERROR
    assert logged == [b'{"logged":1}']
    # the module's own buffers are whole after the nested call
    assert fastjcs.dumps({"b": [1.5, "x"], "a": None}) == b'{"a":null,"b":[1.5,"x"]}'


@pytest.mark.parametrize("fn", [fastjcs.dumps, fastjcs.digest, lambda v: fastjcs.digest_many([v, v])])
def test_a_finalizer_that_empties_what_is_walked(fn):
    inner = ["x" * 100, {"q": [1, 2, 3]}, "\ud800"]
    d = {"a": inner, "b": {"c": inner}}

    def empty():
        inner.clear()
        d.clear()

    result = collect_during_the_walk(empty, fn, d)
    # Two answers are documented (docs/robustness.md): going on from where the walker was, as
    # Python would, meets the removed member (RuntimeError); or the value is read as it is now,
    # emptied ({}). Which one a call gives depends on when the collector runs the finalizer: at
    # the allocation itself on CPython 3.11 and before, at the next check of the eval loop from
    # 3.12 (inside the walk, or only once the Python side resumes it), and on which allocation of
    # the call is the one past the threshold. Any other outcome (a crash, the bytes of the value
    # before it was emptied, another error) fails.
    assert result in (
        ("error", "RuntimeError", "dictionary changed during canonicalization: a member was removed"),
        outcome(fn, {}),
    )


def test_fastjcs_inside_default_and_a_class_property():
    def default(value):
        return {"inner": fastjcs.dumps([value.real]).decode()}

    assert fastjcs.dumps({"z": 1j, "a": [2]}, default=default) == b'{"a":[2],"z":{"inner":"[0.0]"}}'.replace(
        b"0.0", b"0"
    )
    seen = []
    Logging = type(
        "Logging", (int,), {"__class__": property(lambda self: seen.append(fastjcs.dumps({"x": [1]})) or int)}
    )
    assert fastjcs.dumps([Logging(5), "\u00e9"]) == b'[5,"\xc3\xa9"]'
    assert seen and all(s == b'{"x":[1]}' for s in seen)


def test_a_class_property_that_mutates_what_is_walked():
    def build():
        items: list = []
        Mutating = type("Mutating", (int,), {"__class__": property(lambda self: items.clear() or int)})
        items.extend([Mutating(1), "a", {"b": [2]}, 3])
        return {"items": items, "more": items}

    # the property empties the list while its first item is read: what is left is written
    assert outcome(fastjcs.dumps, build()) == outcome(python_backend.dumps, build(), 100)
    assert outcome(fastjcs.dumps, build()) == ("ok", b'{"items":[1],"more":[]}')


def test_threads_changing_a_dict_while_another_dumps_it():
    d = {"a": 1.0, "b": [1, 2]}
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            d["a"] = float("nan")
            time.sleep(0)
            d["a"] = 1.0
            time.sleep(0)

    thread = threading.Thread(target=flip)
    thread.start()
    seen = set()
    deadline = time.monotonic() + 2  # a bound on the test's time, not a timed assertion
    try:
        for _ in range(50000):
            seen.add(outcome(fastjcs.dumps, d))
            many = outcome(fastjcs.digest_many, [d, d])
            seen.add(("digest_many", many[0], many[1] if many[0] == "error" else len(many[1])))
            if time.monotonic() > deadline:
                break
    finally:
        stop.set()
        thread.join()
    allowed = {
        ("ok", b'{"a":1,"b":[1,2]}'),
        ("error", "FloatDomainError", "nan is not representable in JCS"),
        ("digest_many", "ok", 2),
        ("digest_many", "error", "FloatDomainError"),
    }
    assert seen <= allowed, seen - allowed


# ---- default= called by the walker (issue 31, item 1) ---------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


class Foreign:
    """A value of another type, for default= (its tag says what default does with it)."""

    def __init__(self, tag: int) -> None:
        self.tag = tag


def default_of(kind: int, root: list):
    """default callbacks: convert, mutate the value being walked, re-enter fastjcs, raise, return
    another unsupported value; each sees its own copy of the value (root[0])."""

    def default(value):
        if kind == 0:
            return {"tag": value.tag, "nan": float("nan")} if value.tag == 3 else [value.tag, "\u00e9"]
        if kind == 1:
            doc = root[0]
            if type(doc) is dict:
                doc.pop(next(iter(doc)), None)
                doc["zz"] = value.tag
            elif type(doc) is list:
                if doc:
                    doc.pop()
                doc.append("late")
            return value.tag
        if kind == 2:
            return fastjcs.dumps({"inner": [value.tag]}).decode()
        if kind == 3:
            raise ValueError(f"cannot convert {value.tag}")
        return Foreign(value.tag + 1)  # another unsupported value, to the chain's bound

    return default


leaves = (
    st.none()
    | st.integers(-(2**55), 2**55)
    | st.floats(allow_nan=True)
    | st.text(alphabet=st.characters(max_codepoint=0xDFFF), max_size=3)
    | st.builds(Foreign, st.integers(0, 4))
)
programs = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=16,
)


def rebuilt(program):
    """A fresh copy of the value (a mutating default changes its own copy)."""
    if isinstance(program, list):
        return [rebuilt(v) for v in program]
    if isinstance(program, dict):
        return {k: rebuilt(v) for k, v in program.items()}
    return Foreign(program.tag) if isinstance(program, Foreign) else program


@settings(max_examples=300, deadline=None)
@given(programs, st.integers(0, 4), st.integers(0, 6), st.booleans())
def test_default_in_the_walker_agrees_with_the_python_backend(program, kind, depth, integers_only):
    results = []
    for dumps in (native.dumps, python_backend.dumps):
        root = [rebuilt(program)]
        results.append(outcome(dumps, root[0], depth, integers_only, default_of(kind, root)))
    assert results[0] == results[1]


def test_default_is_called_by_the_walker_once_per_value():
    calls = []

    def default(value):
        calls.append(value.tag)
        return value.tag

    value = {"b": [Foreign(1), {"c": Foreign(2)}], "a": Foreign(0), "z": float("nan")}
    with pytest.raises(fastjcs.FloatDomainError):  # after the walker called default: resumed
        fastjcs.dumps(value, default=default)
    assert calls == [0, 1, 2]
    calls.clear()
    value["z"] = 1
    assert fastjcs.dumps(value, default=default) == b'{"a":0,"b":[1,{"c":2}],"z":1}'
    assert calls == [0, 1, 2]


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda d: d.__setitem__("b", 2), ("ok", b'{"a":0,"b":2}')),  # the member as it is when written
        (
            lambda d: d.pop("b"),
            ("error", "RuntimeError", "dictionary changed during canonicalization: a member was removed"),
        ),
    ],
)
def test_a_default_that_changes_a_member_not_yet_written(change, expected):
    """(The walker reads a dict's members when it opens; once default has run it reads each again
    when it writes it, as the Python backend does: a walker that kept its first reading fails.)"""
    for dumps in (native.dumps, python_backend.dumps):
        d = {"b": 1, "a": Foreign(0)}

        def default(value, d=d):
            change(d)
            return value.tag

        assert outcome(dumps, d, 100, False, default) == expected


def test_a_default_that_removes_a_member_whose_name_only_the_dict_held():
    """The walker writes a dict's names from the strings it read when the dict opened, so it holds
    them: here default removes every member, among them one whose name nothing else holds (made at
    run time, not a constant of this code), and the walker still writes that name before it finds
    the member gone. A walker that did not hold the names reads a freed string: Python's allocator
    leaves its bytes in place, so only the asan step's second pass (PYTHONMALLOC=malloc) sees it."""
    for dumps in (native.dumps, python_backend.dumps):
        name = "".join(["b"] * 40)
        d = {name: 1, "a": Foreign(0)}
        del name

        def default(value, d=d):
            d.clear()
            return value.tag

        assert outcome(dumps, d, 100, False, default) == (
            "error",
            "RuntimeError",
            "dictionary changed during canonicalization: a member was removed",
        )


@pytest.mark.skipif(direct is None, reason=f"the direct entry is not in use: {why}")
def test_digest_walks_a_refused_value_once(monkeypatch):
    """digest goes on from where the walker stopped, as dumps does (issue 33), and raises the
    Python backend's error: it never hands the whole value to the Python backend's dumps, which
    would walk it again from the start (what digest did before: counted here, it was called once
    per refused digest)."""
    walks = []
    whole = python_backend.dumps

    def counted(*args, **kwargs):
        walks.append(args[0])
        return whole(*args, **kwargs)

    values = [  # (value, max_depth)
        ({"a": [1, 2], "b": {"c": "x" * 40}, "z": float("nan")}, 1000),
        ([1, {"k": "\ud800"}], 1000),
        ({"deep": [[[[[[1]]]]]]}, 4),
        ([OrderedDictLike(a=1), 2**60], 1000),
    ]
    for value, depth in values:
        expected = outcome(whole, value, depth, False, None)
        assert expected[0] == "error"
        monkeypatch.setattr(python_backend, "dumps", counted)
        assert outcome(fastjcs.digest, value, max_depth=depth) == expected
        assert outcome(fastjcs.dumps, value, max_depth=depth) == expected
        monkeypatch.setattr(python_backend, "dumps", whole)
    assert walks == []


class OrderedDictLike(dict):
    """A dict subclass: the walker leaves it to the Python side (BAIL), which goes on from it."""


def test_a_class_property_that_removes_a_member_in_digest_many():
    """A __class__ property (Python code the walker runs to check a subclass) that removes a member
    not yet written makes the walk raise the Python backend's RuntimeError. digest_many passed that
    walk on as a stop with the exception still set, and raised SystemError ("returned a result with
    an exception set") where dumps raised the RuntimeError."""

    class Lying(int):
        @property
        def __class__(self):  # honest, but it changes the dict being walked
            held.pop("b", None)
            return Lying

    def fresh():
        held.clear()
        held.update(a=Lying(1), b=2)
        return held

    held: dict = {}
    expected = outcome(python_backend.dumps, fresh(), 100, False, None)
    assert expected[:2] == ("error", "RuntimeError")
    assert outcome(fastjcs.dumps, fresh()) == expected
    assert outcome(fastjcs.digest_many, [[1], fresh()]) == expected
