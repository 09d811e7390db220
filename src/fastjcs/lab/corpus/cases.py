"""The lab's cases: `Case`, the registry of generated categories, `generate` and `expectation`
(the expected answers, checked as they are made)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Optional

import fastjcs


@dataclass(frozen=True)
class Case:
    """One document for a canonicalizer, with the answer it owes."""

    id: str  # stable and unique in a run, e.g. "gen/number-halfway/17"
    category: str  # e.g. "number-halfway"; its family is category.split("-")[0]
    clause: str  # the clause it tests, e.g. "RFC 8785 3.2.2.3"
    text: bytes  # the document put to the peer
    expected: bytes | None  # the canonical bytes; None: the document must be refused
    note: str = ""  # one line: what the case is about
    #: non-empty when fastjcs refuses the document only for one of its own limits (its default
    #: depth): no RFC sets that limit, so a peer may refuse it too (class `limit`, not a failure)
    #: or give `expected`, the canonical bytes without the limit
    limit: str = ""


class CorpusError(ValueError):
    """A corpus cannot be loaded (a missing path, an empty corpus, an unknown source)."""


class CorpusCheckError(RuntimeError):
    """An expected answer failed its independent check: a bug in the generator or in fastjcs."""


# ---------------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------------

_NUM = "RFC 8785 3.2.2.3"
_STR = "RFC 8785 3.2.2.2"
_SORT = "RFC 8785 3.2.3"

#: A raw generated case: text, meant to be valid, note, the whole canonical document when it is
#: known independently of fastjcs (number cases), else None.
_Raw = tuple[bytes, bool, str, Optional[bytes]]
_Maker = Callable[[random.Random], _Raw]
#: The listed cases of a category: every entry of its lists once, whatever the seed.
_Lister = Callable[[random.Random], Sequence[_Raw]]


@dataclass(frozen=True)
class _Category:
    clause: str
    description: str
    make: _Maker | None  # None: a category of listed cases only
    cap: int | None = None  # at most this many sampled cases per run (big documents)
    listed: _Lister | None = None


_REGISTRY: dict[str, _Category] = {}


def _category(name: str, clause: str, description: str, cap: int | None = None) -> Callable[[_Maker], _Maker]:
    def register(make: _Maker) -> _Maker:
        _REGISTRY[name] = _Category(clause, description, make, cap)
        return make

    return register


def _lists(name: str, clause: str = "", description: str = "") -> Callable[[_Lister], _Lister]:
    """Register the listed cases of a category (a new one of listed cases only when a clause is
    given): they come first in every run, each entry once, whatever the seed or --per-category."""

    def register(listed: _Lister) -> _Lister:
        old = _REGISTRY.get(name)
        if old is None:
            _REGISTRY[name] = _Category(clause, description, None, None, listed)
        else:
            _REGISTRY[name] = _Category(old.clause, old.description, old.make, old.cap, listed)
        return listed

    return register


# --- listed cases: every entry of every list, once per run, whatever the seed -------------------
#
# Sampling draws from the lists above at random: at 50 cases a category it misses entries, and a
# peer wrong on one entry passes some seeds and fails others. Each category's listed cases put
# every entry once (numbers in an array, so a peer that takes only objects and arrays is still
# held to them); the sampled cases come on top. Their slots and filler are drawn from a Random
# of the category's name alone, never of the seed.


def _utf16_sorted(output: bytes) -> bool:
    """Whether every object of a canonical output lists its members in UTF-16 code-unit order."""
    ok = True

    def check(pairs: list[tuple[str, object]]) -> None:
        nonlocal ok
        keys = [k.encode("utf-16-be", "surrogatepass") for k, _ in pairs]
        ok = ok and keys == sorted(keys)

    json.loads(output, object_pairs_hook=check)
    return ok


def _expected(text: bytes) -> bytes | None:
    try:
        return fastjcs.canonicalize(text)
    except fastjcs.FastJCSError:
        return None


def generate(seed: int, per_category: int, listed: int | None = None) -> list[Case]:
    """`per_category` distinct documents of every category in `CATEGORIES` (fewer where a
    category has fewer distinct cases to give, or caps its big documents: its description says),
    deterministic for a seed: each category draws from its own random.Random(f"{seed}:{name}"),
    so adding a category does not change the others.

    Expected bytes are fastjcs's, checked as they are made (CorpusCheckError on a mismatch): a
    document meant invalid must be refused and one meant valid accepted; a number document's
    canonical bytes must equal its independent rebuilding (es6_layout of the token's value, read
    by Python); an object's members must come out in UTF-16 order.

    `listed`: at most this many of each category's listed cases, spread evenly from the first to
    the last (the others are neither checked nor given; the sampled cases stay the same).
    """
    cases: list[Case] = []
    for name, cat in _REGISTRY.items():
        seen: set[bytes] = set()
        if cat.listed is not None:
            entries = []
            for k, raw in enumerate(cat.listed(random.Random(f"listed:{name}"))):
                if raw[0] not in seen:
                    seen.add(raw[0])
                    entries.append((k, raw))
            if listed is not None and len(entries) > listed:
                last = len(entries) - 1
                entries = [entries[i] for i in sorted({j * last // max(1, listed - 1) for j in range(listed)})]
            cases += [_checked(f"gen/{name}/listed-{k}", name, cat.clause, raw) for k, raw in entries]
        if cat.make is None:
            continue
        rng = random.Random(f"{seed}:{name}")
        want_n = min(per_category, cat.cap if cat.cap is not None else per_category)
        drawn = misses = 0
        while drawn < want_n and misses < 4 * want_n + 100:
            raw = cat.make(rng)
            if raw[0] in seen:
                misses += 1
                continue
            seen.add(raw[0])
            cases.append(_checked(f"gen/{name}/{drawn}", name, cat.clause, raw))
            drawn += 1
    return cases


def _beyond_limit(text: bytes) -> bytes | None:
    """The canonical bytes of a text fastjcs refuses only for its default depth limit, else None."""
    try:
        fastjcs.canonicalize(text)
    except fastjcs.DepthLimitError:
        try:
            return fastjcs.canonicalize(text, max_depth=1 << 30)
        except fastjcs.FastJCSError:
            return None
    except fastjcs.FastJCSError:
        return None
    return None


def _limit_note(text: bytes) -> str:
    return f"deeper than fastjcs's default depth limit ({fastjcs.DEFAULT_MAX_DEPTH}), which no RFC sets"


def expectation(text: bytes) -> tuple[bytes | None, str]:
    """(expected bytes, limit) of a document: fastjcs's canonical bytes, or None when it must
    be refused; for a document fastjcs refuses only for its own depth limit, the canonical bytes
    without that limit and the limit in words (a peer may refuse it: see Case.limit)."""
    expected = _expected(text)
    if expected is None:
        beyond = _beyond_limit(text)
        if beyond is not None:
            return beyond, _limit_note(text)
    return expected, ""


def _checked(case_id: str, name: str, clause: str, raw: _Raw) -> Case:
    """The case of a generated document, its expected bytes checked (CorpusCheckError)."""
    text, valid, note, rebuilt = raw
    expected = _expected(text)
    limit = ""
    if expected is None and valid:
        beyond = _beyond_limit(text)
        if beyond is not None:
            expected, limit = beyond, _limit_note(text)
    case = Case(case_id, name, clause, text, expected, note, limit)
    if (expected is not None) != valid:
        raise CorpusCheckError(
            f"{case.id}: meant {'valid' if valid else 'invalid'}, fastjcs "
            f"{'refuses' if expected is None else 'accepts'} it: {text[:80]!r} ({note})"
        )
    if rebuilt is not None and expected != rebuilt:
        raise CorpusCheckError(
            f"{case.id}: fastjcs renders {text[:80]!r} as {expected!r}, the ES6 rules give {rebuilt!r}"
        )
    if name.startswith("order-") and expected is not None and not _utf16_sorted(expected):
        raise CorpusCheckError(f"{case.id}: members not in UTF-16 order: {expected[:80]!r}")
    if name == "structure-deep" and not limit:
        raise CorpusCheckError(f"{case.id}: meant past fastjcs's depth limit, but within it")
    return case


# ---------------------------------------------------------------------------------------------------
# The repository's JCS vectors
# ---------------------------------------------------------------------------------------------------
