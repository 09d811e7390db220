"""The lab's classes: how one answer of a peer is classified against the checked answer
(fastjcs's canonical bytes, or a refusal). Every answer falls in exactly one class (CLASSES);
`agree` is the only pass, and the choices (CHOICES) are counted and shown, neither a pass nor a
failure. Also the families of categories (the matrix's columns) and when an answer is `slow`.
"""

from __future__ import annotations

import re
import time

from ..conformance.reader import Members, Token, read
from .corpus import expectation
from .peers import (
    CANNOT_START,
    CRASH,
    ERROR,
    PROTOCOL_ERROR,
    TIMEOUT,
    Outcome,
)

AGREE = "agree"
#: Wrong bytes, by the area where they differ from the canonical form.
WRONG_NUMBER, WRONG_STRING, WRONG_ORDER, WRONG_WHITESPACE, WRONG_OTHER = (
    "wrong-number",
    "wrong-string",
    "wrong-order",
    "wrong-whitespace",
    "wrong-other",
)
ACCEPTS_INVALID, REFUSES_VALID = "accepts-invalid", "refuses-valid"
#: The right bytes, but later than SLOW_FACTOR times what fastjcs takes in-process plus
#: SLOW_FLOOR seconds (cases of the `large` family, where a superlinear peer shows).
SLOW = "slow"
SLOW_FACTOR, SLOW_FLOOR = 100, 1.0
#: A refusal of a document that fastjcs refuses only for its own depth limit (no RFC sets one):
#: counted and shown, neither a pass nor a failure.
LIMIT = "limit"
#: A refusal of a valid document that holds an integer token beyond 2^53 in magnitude: I-JSON
#: (RFC 7493 2.2, which RFC 8785 leans on) lets a receiver refuse numbers beyond a double's
#: precision (rfc8785 does). Counted and shown, neither a pass nor a failure; `bench` reports the
#: same refusals of its probes in the same words (IJSON_CHOICE_WORDS).
IJSON_CHOICE = "i-json-choice"
IJSON_CHOICE_WORDS = "I-JSON choice (integers beyond 2^53)"
#: Classes counted and shown that are neither a pass nor a failure.
CHOICES = (LIMIT, IJSON_CHOICE)
_INTEGER_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|(-?[0-9]+)(?![0-9.eE])')


def beyond_2_53(text: bytes) -> bool:
    """Whether the JSON text holds an integer token (no fraction, no exponent) beyond 2^53 in
    magnitude (strings skipped)."""
    return any(m and abs(int(m)) > 2**53 for m in _INTEGER_TOKEN.findall(text))


#: Every class of failure, in the order reports list them.
CLASSES = (
    WRONG_NUMBER,
    WRONG_STRING,
    WRONG_ORDER,
    WRONG_WHITESPACE,
    WRONG_OTHER,
    ACCEPTS_INVALID,
    REFUSES_VALID,
    SLOW,
    CRASH,
    TIMEOUT,
    CANNOT_START,
    PROTOCOL_ERROR,
)
#: Classes where the peer gave no answer: not compared.
NO_ANSWER = (CRASH, TIMEOUT, CANNOT_START, PROTOCOL_ERROR)
_AREA = {
    "number-format": WRONG_NUMBER,
    "string-escaping": WRONG_STRING,
    "member-order": WRONG_ORDER,
    "whitespace": WRONG_WHITESPACE,
    "trailing-newline": WRONG_WHITESPACE,
    "other": WRONG_OTHER,
}
#: The families of categories, the matrix's columns, in order (a category is "<family>-<what>").
FAMILIES = ("number", "string", "order", "structure", "large", "whitespace", "syntax", "vectors", "es6", "user")
#: Families whose answers are timed against fastjcs's (class `slow`).
TIMED_FAMILIES = ("large",)


def difference_kind(ours: bytes, theirs: bytes) -> str:
    """The kind of disagreement between two outputs for the same text, read token-preserving:
    member-order when the same objects list their members in another order, number-format when
    a number token differs, whitespace when only insignificant whitespace differs, string-escaping
    when the tokens are equal but the bytes are not (a string written with other escapes),
    trailing-newline when the other output is ours plus a final line ending, other for anything
    else."""
    if theirs in (ours + b"\n", ours + b"\r\n"):
        return "trailing-newline"
    try:
        a, b = read(ours), read(theirs)
    except (ValueError, RecursionError):  # not JSON, or nested past what Python's reader takes
        return "other"
    stack = [(a, b)]
    order = number = False
    while stack:
        x, y = stack.pop()
        if isinstance(x, Members) and isinstance(y, Members):
            kx, ky = [k for k, _ in x], [k for k, _ in y]
            if kx != ky:
                if sorted(kx) != sorted(ky):
                    return "other"
                order = True
            vy = dict(y)
            stack.extend((v, vy[k]) for k, v in x if k in vy)
        elif type(x) is list and type(y) is list and len(x) == len(y):
            stack.extend(zip(x, y))
        elif isinstance(x, Token) and isinstance(y, Token):
            number = number or x != y
        elif type(x) is not type(y) or x != y:
            return "other"
    if order:
        return "member-order"
    if number:
        return "number-format"
    return "whitespace" if _without_whitespace(theirs) == _without_whitespace(ours) else "string-escaping"


def _without_whitespace(text: bytes) -> bytes:
    """A JSON text without its insignificant whitespace (outside strings)."""
    out = bytearray()
    in_string = escaped = False
    for byte in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (byte == 0x5C, byte != 0x22)
        elif byte == 0x22:
            in_string = True
        elif byte in b" \t\n\r":
            continue
        out.append(byte)
    return bytes(out)


def family(category: str) -> str:
    """The matrix column of a category: the part before its first hyphen."""
    return category.split("-", 1)[0]


def _family_rank(fam: str) -> tuple[int, str]:
    return (FAMILIES.index(fam) if fam in FAMILIES else len(FAMILIES), fam)


def classify(expected: bytes | None, outcome: Outcome) -> str:
    """The class of one answer: agree, or one of CLASSES."""
    if outcome.fault:
        return outcome.status
    if expected is None:
        return AGREE if outcome.status == ERROR else ACCEPTS_INVALID
    if outcome.status == ERROR:
        return REFUSES_VALID
    if outcome.data == expected:
        return AGREE
    return _AREA[difference_kind(expected, outcome.data)]


def expected_of(text: bytes) -> bytes | None:
    """fastjcs's answer for a text: its canonical bytes, or None when it refuses it (the bytes
    without the limit for a text refused only for fastjcs's depth limit)."""
    return expectation(text)[0]


def classify_case(
    expected: bytes | None, limit: str, outcome: Outcome, slow_after: float | None = None, text: bytes = b""
) -> str:
    """The class of one answer to a case: `limit` for a refusal of a document refused only for
    fastjcs's own limit, `i-json-choice` for a refusal of a valid `text` with an integer beyond
    2^53, `slow` for the right bytes after more than `slow_after` seconds, else as `classify`."""
    if limit and outcome.status == ERROR:
        return LIMIT
    if expected is not None and outcome.status == ERROR and beyond_2_53(text):
        return IJSON_CHOICE
    cls = classify(expected, outcome)
    if cls == AGREE and slow_after is not None and outcome.seconds > slow_after:
        return SLOW
    return cls


def classify_text(text: bytes, outcome: Outcome) -> str:
    """The class of an answer to any text (a shrinking trial, a reproducer)."""
    expected, limit = expectation(text)
    return classify_case(expected, limit, outcome, text=text)


_REFERENCE_SECONDS: dict[bytes, float] = {}


def slow_after(text: bytes) -> float:
    """When an answer to the text is `slow`: SLOW_FLOOR + SLOW_FACTOR x fastjcs's time for it
    in this process (the best of three)."""
    if text not in _REFERENCE_SECONDS:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            expected_of(text)
            best = min(best, time.perf_counter() - start)
        _REFERENCE_SECONDS[text] = best
    return SLOW_FLOOR + SLOW_FACTOR * _REFERENCE_SECONDS[text]
