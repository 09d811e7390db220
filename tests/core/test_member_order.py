"""Member order in nests of objects out of order, on both backends, against rfc8785.

The C core moves an object's members when it closes only while that costs little; an object
holding many bytes that moved already is recorded instead and written in one final pass. These
tests build values where both happen, mixed at every level (objects in objects, in arrays, sorted
objects between unsorted ones, big and small leaves, more members than the insertion-sort
cutoff), and compare `dumps` and `canonicalize` with rfc8785's bytes. A wrong final pass (a
recorded object left in input order, members or commas misplaced, a nested record emitted in
input order instead of its parent's order) changes the bytes.
"""

from __future__ import annotations

import json
import random

import pytest
import rfc8785
from shapes import nested_disorder_text, nested_disorder_value

import fastjcs

NAMES = ["a", "b", "c", "aa", "\u00e9", "\U0001f602", "\ufb33", "z", "m", "k0", "k1"]


def _value(rng: random.Random, depth: int, budget: list):
    """A random value at most `depth` deep; budget[0] caps the containers made in all."""
    roll = rng.random()
    if depth == 0 or roll < 0.15 or budget[0] <= 0:
        return rng.choice([0, -1, 2.5, None, True, "s", "x" * rng.choice([1, 40, 3000])])
    budget[0] -= 1
    if roll < 0.35:
        return [_value(rng, depth - 1, budget) for _ in range(rng.randint(0, 4))]
    count = rng.choice([1, 2, 3, 5, 20])  # 20: past the insertion-sort cutoff of the C sort
    names = rng.sample(NAMES, min(count, len(NAMES))) + [
        f"n{rng.randint(0, 999):03d}" for _ in range(max(0, count - len(NAMES)))
    ]
    names = list(dict.fromkeys(names))
    if rng.random() < 0.3:
        names.sort()  # a sorted object between unsorted ones
    return {name: _value(rng, depth - 1, budget) for name in names}


@pytest.mark.parametrize("seed", range(40))
def test_random_nests_match_rfc8785(backend, seed):
    rng = random.Random(seed)
    for _ in range(25):
        value = _value(rng, rng.randint(1, 8), [40])
        expected = rfc8785.dumps(value)
        assert fastjcs.dumps(value) == expected
        assert fastjcs.canonicalize(json.dumps(value).encode()) == expected


@pytest.mark.parametrize("depth, size", [(1, 10), (2, 5000), (50, 100_000), (3000, 64)])
def test_deep_disorder_matches_rfc8785(backend, depth, size):
    value = nested_disorder_value(min(depth, 1500), size)
    expected = rfc8785.dumps(value) if depth < 500 else None
    got = fastjcs.dumps(value)
    if expected is not None:
        assert got == expected
    text = nested_disorder_text(depth, size)
    canonical = ('{"a":0,"b":' * depth + '"' + "x" * size + '"' + "}" * depth).encode()
    assert fastjcs.canonicalize(text) == canonical
    if depth <= 1500:
        assert got == ('{"a":0,"b":' * min(depth, 1500) + '"' + "x" * size + '"' + "}" * min(depth, 1500)).encode()


def test_siblings_and_arrays_of_deep_disorder(backend):
    inner = json.loads(nested_disorder_text(30, 50_000))
    value = {"z": [inner, {"y": inner, "b": [inner]}], "a": {"q": inner, "p": 1}, "m": inner}
    expected = rfc8785.dumps(value)
    assert fastjcs.dumps(value) == expected
    assert fastjcs.canonicalize(json.dumps(value).encode()) == expected


def test_duplicate_found_under_deep_disorder(backend):
    text = b'{"b":' + nested_disorder_text(40, 100_000) + b',"a":1,"b":2}'
    with pytest.raises(fastjcs.DuplicateKeyError) as info:
        fastjcs.canonicalize(text)
    assert info.value.offset == text.rindex(b'"b"')


@pytest.mark.parametrize("size", [16, 17, 31, 32, 33, 64, 65, 1000, 4097])
def test_wide_objects_of_python_values_match_rfc8785(backend, size):
    """dumps of one dict of `size` members, shuffled, nested in and holding other wide dicts: the
    walker's member sort (insertion sort up to 16 members, merge passes above, issue 33's one sort)
    against rfc8785. Names mix U+E000..U+FFFF with supplementary characters, whose UTF-16 order is
    not their code point order, and share long prefixes, so a merge that takes the wrong side, a
    pass that stops early or a code point comparison changes the bytes."""
    rng = random.Random(size)
    stems = ["", "\ue000", "\uffff", "\U00010000", "\U0010ffff", "\u00e9", "same-prefix-" * 3]
    names = [f"{rng.choice(stems)}{i:05d}{rng.choice(stems)}" for i in range(size)]
    rng.shuffle(names)
    inner = {name: i for i, name in enumerate(reversed(names[:40]))}
    value = {name: (inner if i % 97 == 0 else [i, {"b": 1, "a": 2}]) for i, name in enumerate(names)}
    assert fastjcs.dumps(value) == rfc8785.dumps(value)
    assert fastjcs.dumps([value, inner]) == rfc8785.dumps([value, inner])


@pytest.mark.parametrize("n", range(1, 21))
def test_a_remembered_order_is_not_taken_for_names_that_differ_late(backend, n):
    """The C core remembers the order of the last objects' names (writer.c's memo) and reuses it
    when an object's names are the same bytes. Two objects whose first names differ only at byte
    i (same length, same first byte: the same memo slot) sort differently: {P, Q, R} -> Q R P and
    {P', Q, R} -> Q P' R. A name comparison that skips any byte (the words at the end of a name:
    one word ending at n, two half-words below 8 bytes) reuses the first order for the second."""
    for i in range(n):

        def name(c: str, i: int = i) -> str:
            return "m" * i + c + "m" * (n - i - 1)

        p, p2, q, r = name("z"), name("n"), "a" * n, name("p")
        value = [{p: 1, q: 2, r: 3}, {p2: 1, q: 2, r: 3}]
        text = json.dumps(value).encode()
        assert fastjcs.canonicalize(text) == rfc8785.dumps(value), (n, i)
        assert fastjcs.dumps(value) == rfc8785.dumps(value), (n, i)
