"""Shrinking a failing case: a smaller text of the same class, found by trials put to the peer in
batches (the smallest value inside it that keeps the class, then delta debugging over bytes).
"""

from __future__ import annotations

import json
from typing import Callable

#: Texts longer than this are cut down by bytes before their inner values are tried (trying every
#: start of a value is quadratic in the length).
DESCEND_BELOW = 4096


def sub_values(text: bytes) -> list[bytes]:
    """Every complete JSON value inside the text but the whole (members' values, elements,
    strings, numbers), smallest first: the candidates for descending into a child."""
    decoder = json.JSONDecoder()
    chars = text.decode("utf-8", "surrogateescape")
    found = set()
    for start, ch in enumerate(chars):
        if ch in '{["-0123456789tfn' and (start == 0 or chars[start - 1] not in "0123456789.eE+-"):
            try:
                _, end = decoder.raw_decode(chars, start)
            except (ValueError, RecursionError):
                continue
            if end - start < len(chars):
                found.add(chars[start:end].encode("utf-8", "surrogateescape"))
    return sorted(found, key=lambda t: (len(t), t))


class _Budget:
    def __init__(self, calls: int) -> None:
        self.left = calls

    def take(self, trials: list[bytes]) -> list[bytes]:
        trials = trials[: max(0, self.left)]
        self.left -= len(trials)
        return trials


def _descend(text: bytes, same_class: Callable[[list[bytes]], list[bool]], budget: _Budget) -> bytes:
    inner = budget.take(sub_values(text))
    if inner:
        verdicts = same_class(inner)
        if any(verdicts):
            return inner[verdicts.index(True)]
    return text


def _ddmin(text: bytes, same_class: Callable[[list[bytes]], list[bool]], budget: _Budget) -> bytes:
    n = 2
    while len(text) > 1 and budget.left > 0:
        size = max(1, len(text) // n)
        pieces = [(k, min(k + size, len(text))) for k in range(0, len(text), size)]
        trials = [text[:a] + text[b:] for a, b in pieces]
        if n > 2:
            trials += [text[a:b] for a, b in pieces]
        trials = budget.take(trials)
        verdicts = same_class(trials)
        if any(verdicts):
            text = trials[verdicts.index(True)]
            n = max(n - 1, 2)
        elif size == 1:
            break
        else:
            n = min(len(text), n * 2)
    return text


def shrink_bytes(text: bytes, same_class: Callable[[list[bytes]], list[bool]], budget: int) -> bytes:
    """A smaller text of the same class, in at most `budget` trials: the smallest value inside it
    that keeps the class, then delta debugging over bytes (each round's candidates, the text
    without one of n chunks and each chunk alone, put to the peer together in one batch). A long
    text is cut down by bytes first."""
    left = _Budget(budget)
    if len(text) > DESCEND_BELOW:
        text = _ddmin(text, same_class, left)
    if len(text) <= DESCEND_BELOW:
        text = _descend(text, same_class, left)
    return _ddmin(text, same_class, left)
