"""A text already in canonical form is hashed where it lies (csrc/canonical.c, used by batch.c):
the check `fjcs__text_is_canonical` must say 1 only when fjcs_canonicalize would give the text
back unchanged, and the batch must give, line by line, the same digests and errors with it.

Expected values come from outside the C core: rfc8785.dumps of json.loads (RFC 8785's reference
form, its UTF-16 member order and ECMAScript numbers), hashlib's SHA-256, and the Python backend's
errors. Each near-canonical line below is one the check must refuse, named by the wrong check it
catches (a line that looks canonical but is not: a check that took it would hash the wrong bytes).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from pathlib import Path

import pytest
import rfc8785

from fastjcs.core import python_backend as _python

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "c"))
import cbuild  # noqa: E402
from _canonical_cases import CANONICAL, NEAR  # noqa: E402

_test_build = cbuild.load_or_skip(
    "_fjcs_test_canonical",
    "int fjcs__text_is_canonical(const char *text, size_t len, size_t max_depth, int flags);",
)
lib = _test_build.lib

STRICT, INTEGERS_ONLY = 1, 2


def is_canonical(text: bytes, max_depth: int = 100, flags: int = 0) -> bool:
    return bool(lib.fjcs__text_is_canonical(text, len(text), max_depth, flags))


def reference(text: bytes) -> bytes:
    return rfc8785.dumps(json.loads(text))


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_lines_are_taken(text):
    assert reference(text) == text  # the line is canonical by RFC 8785's reference
    assert is_canonical(text)


@pytest.mark.parametrize(("text", "wrong"), NEAR, ids=[w for _, w in NEAR])
def test_near_canonical_lines_are_refused(text, wrong):
    assert not is_canonical(text), wrong


def test_depth_and_flags_leave_the_line_to_the_parser():
    """A canonical line that the parser refuses under the limits is not taken: too deep for
    max_depth (FJCS_E_DEPTH), a fraction under integers-only (FJCS_E_NOT_INTEGER)."""
    assert is_canonical(b"[[1]]", max_depth=2)
    assert not is_canonical(b"[[1]]", max_depth=1)
    assert not is_canonical(b"[" * 65 + b"]" * 65, max_depth=1000)  # deeper than the check follows
    assert is_canonical(b"[1.5]", flags=STRICT)
    assert not is_canonical(b"[1.5]", flags=INTEGERS_ONLY)
    assert is_canonical(b"[-123456789012345]", flags=INTEGERS_ONLY)


#: The numbers the check leaves to the parser: an exponent, an integer of 16 digits or more (the
#: strings of _random_values hold no digit and no "e").
LEFT_TO_THE_PARSER = re.compile(rb"e[+-]|(?<![\d.])-?\d{16,}(?![\d.])")


def _mutations(rng: random.Random, text: bytes) -> list[bytes]:
    """The text with one byte changed, inserted or removed, at random places."""
    out = []
    for _ in range(6):
        i = rng.randrange(len(text) + 1)
        byte = bytes([rng.choice(b' \r"\\,:{}[]0123456789.eE-+abu\x01\x7f\xc3\xa9\xf0')])
        out.append(text[:i] + byte + text[i + 1 :])
        out.append(text[:i] + byte + text[i:])
        out.append(text[:i] + text[i + 1 :])
    return out


def _random_values(rng: random.Random, depth: int = 0, escaped_names: bool = True):
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return rng.choice([0, -1, 7, 10**15 - 1, -(10**14), 2**53 - 1])
    if kind == 1:
        return rng.choice([0.5, -1.25, 1e-6, 1e-7, 0.1 + 0.2, 1e21, 1e20, 2.0**53, 123.456, 5e-324, rng.random()])
    if kind == 2:
        return "".join(
            rng.choice(["a", "\u00e9", "\ue000", "\U0001f600", '"', "\\", "\n", "\x01", "/"]) for _ in range(3)
        )
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return ""
    if kind == 5:
        return [_random_values(rng, depth + 1, escaped_names) for _ in range(rng.randrange(4))]
    names = ["a", "b", "B", "aa", "", "\u00e9", "\ue000", "\U0001f600"] + (["\\", "x\ny"] if escaped_names else [])
    return {rng.choice(names): _random_values(rng, depth + 1, escaped_names) for _ in range(rng.randrange(5))}


def test_whatever_the_check_takes_is_its_own_canonical_form():
    """Canonical texts of random values (rfc8785's) and one-byte mutations of them: every text the
    check takes is rfc8785's form of itself; and it takes every canonical text whose numbers it
    reads (all but exponents and integers of 16 digits or more) and whose names hold no escape."""
    rng = random.Random(8785)
    taken = 0
    for i in range(1500):
        plain_names = i % 2 == 0
        canonical = rfc8785.dumps(_random_values(rng, escaped_names=not plain_names))
        for text in [canonical, *_mutations(rng, canonical)]:
            if is_canonical(text):
                taken += 1
                assert reference(text) == text, text
        if plain_names and not LEFT_TO_THE_PARSER.search(canonical):
            assert is_canonical(canonical), canonical
    assert taken > 1500


def _expected_lines(data: bytes) -> tuple[bytes, int, list]:
    return _python.digest_lines_hex(data, 100, False, "sha256", "sha256:")


def test_digest_lines_hex_gives_the_same_lines_and_errors(native):
    """fjcs_digest_lines_hex with the check against the Python backend, on canonical lines, the
    near-canonical ones (errors at the same offsets) and mutations; and a canonical line's digest
    is SHA-256 of the line itself (hashlib)."""
    rng = random.Random(31)
    lines = [*CANONICAL, *(t for t, _ in NEAR)]
    for _ in range(300):
        canonical = rfc8785.dumps(_random_values(rng))
        lines += [canonical, *_mutations(rng, canonical)]
    lines = [line for line in lines if b"\n" not in line]
    data = b"\n".join(lines) + b"\n"
    assert native.digest_lines_hex(data, 100, False, "sha256", "sha256:") == _expected_lines(data)
    out, count, _ = native.digest_lines_hex(b"\n".join(CANONICAL) + b"\n", 100, False, "sha256", "sha256:")
    want = b"".join(b"sha256:" + hashlib.sha256(t).hexdigest().encode() + b"\n" for t in CANONICAL)
    assert (out, count) == (want, len(CANONICAL))


def _pair(n: int, i: int, low: str, high: str) -> tuple[str, str]:
    """Two names of n characters, equal but at character i: the first has `low` there and "z"
    after it, the second `high` and "a" after, so the first sorts first and only byte i says so."""
    return "m" * i + low + "z" * (n - i - 1), "m" * i + high + "a" * (n - i - 1)


@pytest.mark.parametrize("n", range(1, 21))
def test_names_are_ordered_by_their_first_differing_byte(n):
    """canonical.c's name order (fjcs__key_cmp_words: a word at a time, the last word ending at the
    shorter name's end, two half-words below 8 bytes, the first differing byte the lowest nonzero
    byte of the words' XOR) at every position of names of 1-20 characters, also where UTF-16 order
    is not byte order (U+10000 against U+FFFF at character i): rfc8785's order is taken, the other
    refused, and a name that is a prefix of the next comes first. Comparing at the last differing
    byte, skipping the word that ends at n or the second half-word (a wrong order taken), or
    taking the tail word's first byte in place of its first differing one (a canonical line
    refused) each fail."""
    for i in range(n):
        for low, high in (("a", "b"), ("\U00010000", "\uffff")):
            first, second = _pair(n, i, low, high)
            for names in ((first, second), (second, first), ("m" * n, "m" * (n + 1)), (second, "m" * (n + 1))):
                value = {name: k for k, name in enumerate(names)}
                text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
                assert is_canonical(text) == (text == reference(text)), (n, i, text)


#: Canonical values, and what may follow each on its line: a line is taken for its own canonical
#: form only when the value ends at the line's b"\n" (or at the end of the input).
_ENDS = [b"", b" ", b"\r", b"x", b"0", b",1", b"\t", b"]", b"}", b'"'] + [b"\xc3\xa9"]


def test_a_canonical_line_ends_at_its_newline(native):
    """fjcs_digest_lines_hex checks a line before it knows where the line ends (the check finds
    its end): each canonical value followed by each of _ENDS and a b"\\n", then by its next line,
    the last line with no b"\\n" at all, and empty lines between. The same lines, digests and
    errors as the Python backend, and each taken line's digest is SHA-256 of the line (hashlib).
    Taking a value whose line goes on after it (also where a b"\\r" follows it) or a line's end
    one byte off each fail."""
    values = [b"0", b"-1.5", b"123", b"true", b'"a"', b"[]", b"{}", b'{"a":[1,"\\n"]}', b"[0.30000000000000004]"]
    lines = [value + end for value in values for end in _ENDS] + [b"", b"[1]"]
    for last in (b"", b"\n"):
        data = b"\n".join(lines) + last
        got = native.digest_lines_hex(data, 100, False, "sha256", "sha256:")
        assert got == _expected_lines(data)
        assert got[1] == len(lines)
    taken = b"".join(b"sha256:" + hashlib.sha256(v).hexdigest().encode() + b"\n" for v in values)
    assert native.digest_lines_hex(b"\n".join(values), 100, False, "sha256", "sha256:") == (taken, len(values), [])
