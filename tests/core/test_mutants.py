"""Tests of the tests: each check above must fail on the wrong implementation it is meant to catch.

Each case plants one classic mistake in the pure-Python backend (monkeypatched, for this test
only) and runs a real check from the suite against it: the check must fail. A check that stayed
green on its mutant would be assertion-free for that defect.
"""

from __future__ import annotations

import io
import json
import re

import es6corpus
import pytest
import test_dumps_differential as differential
import test_properties as properties
import test_rfc8785_examples as rfc_examples
import test_text_errors as text_errors
from _vectors import cases

import fastjcs
from fastjcs.core import parser
from fastjcs.core import python_backend as _python

CHECK_FAILED = (AssertionError, pytest.fail.Exception)


@pytest.fixture
def mutate(monkeypatch, swap_backend):
    swap_backend(_python)
    return monkeypatch


def _vector(directory, name):
    for p in cases(directory):
        if p.values[0]["name"] == name:
            return p.values[0]
    raise KeyError(name)


def _must_fail(name):
    text_errors.check_must_fail(fastjcs.canonicalize, _vector("text-must-fail", name))


def _row(hex_pattern):
    return next(r for r in rfc_examples.APPENDIX_B if r["ieee754"] == hex_pattern)


def test_code_point_sort_is_caught(mutate):
    def code_point_sorted(d):
        keys = sorted(d)
        "".join(keys)
        return keys

    mutate.setattr(_python, "_sorted_keys", code_point_sorted)
    with pytest.raises(CHECK_FAILED):
        properties.check_utf16_order(fastjcs.dumps, properties.UTF16_WITNESSES)
    with pytest.raises(CHECK_FAILED):
        rfc_examples.test_sorting_example_order(_python)
    with pytest.raises(CHECK_FAILED):
        rfc_examples.test_worked_example_dumps(_python, "sorting")


def test_repr_exponent_is_caught(mutate):
    # json.dumps-style numbers: 1e-07, 1e+16, 1.0.
    mutate.setattr(_python, "format_double", repr)
    with pytest.raises(CHECK_FAILED):
        # 0x3eb0c6f7a0b5ed8c is 9.999999999999997e-7
        rfc_examples.test_appendix_b_dumps(_python, _row("3eb0c6f7a0b5ed8c"))
    with pytest.raises(CHECK_FAILED):
        differential.check_same_as_rfc8785(fastjcs.dumps, [1e-7])


def check_corpus(fmt, lines):
    """The corpus check of test_es6_corpus.py, on the first `lines` lines, for one renderer."""
    digests = es6corpus.sha256_at(lambda xs: [fmt(x) for x in xs], [lines])
    assert digests == {lines: es6corpus.PUBLISHED[lines]}


def test_es6_corpus_catches_a_layout_slip(mutate):
    check_corpus(fastjcs.format_double, 1_000)  # the control
    real = _python._layout

    def exponent_from_1e20(digits, n):  # the plain/exponent boundary off by one (1e20 not 1e21)
        if n != 21:
            return real(digits, n)
        return digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + "e+20"

    mutate.setattr(_python, "_layout", exponent_from_1e20)
    with pytest.raises(CHECK_FAILED):
        check_corpus(fastjcs.format_double, 1_000)


def test_es6_corpus_catches_repr():
    with pytest.raises(CHECK_FAILED):
        check_corpus(repr, 1_000)


def test_minus_zero_is_caught(mutate):
    real = _python.format_double
    mutate.setattr(_python, "format_double", lambda x: "-0" if str(x) == "-0.0" else real(x))
    with pytest.raises(CHECK_FAILED):
        rfc_examples.test_appendix_b_dumps(_python, _row("8000000000000000"))


def test_nan_as_text_is_caught(mutate):
    real = _python.format_double
    mutate.setattr(_python, "format_double", lambda x: "NaN" if x != x else real(x))
    with pytest.raises(CHECK_FAILED):
        rfc_examples.test_appendix_b_nan_and_infinity_are_errors(_python, _row("7fffffffffffffff"))


def test_uppercase_hex_escape_is_caught(mutate):
    real = _python._escape
    mutate.setattr(
        _python,
        "_escape",
        lambda s: re.sub(r"\\u00[0-9a-f]{2}", lambda m: m.group(0).upper().replace("\\U", "\\u"), real(s)),
    )
    with pytest.raises(CHECK_FAILED):
        differential.check_same_as_rfc8785(fastjcs.dumps, "\x1f")
    with pytest.raises(CHECK_FAILED):
        text_errors.test_canonical(_python, _vector("text-canonical", "other controls: lowercase hex"))
    with pytest.raises(CHECK_FAILED):
        rfc_examples.test_worked_example_canonicalize(_python, "values")  # \u000f


def test_escaped_solidus_is_caught(mutate):
    real = _python._escape
    mutate.setattr(_python, "_escape", lambda s: real(s).replace("/", "\\/"))
    with pytest.raises(CHECK_FAILED):
        text_errors.test_canonical(_python, _vector("text-canonical", "escaped solidus"))


def test_character_offsets_are_caught(mutate):
    # Reporting the index in the decoded text instead of the byte offset.
    real = parser.Text.fail

    def character_index(self, cls, msg, offset, **kw):
        index = len(bytes(self.data[:offset]).decode("utf-8", "surrogateescape"))
        return real(self, cls, msg, index, **kw)

    mutate.setattr(parser.Text, "fail", character_index)
    for name in ("lone surrogate after a 2-byte character (offset in bytes)",):
        with pytest.raises(CHECK_FAILED):
            text_errors.check_must_fail(fastjcs.canonicalize, _vector("text-must-fail", name))
    with pytest.raises(CHECK_FAILED):
        text_errors.check_must_fail(
            fastjcs.canonicalize, _vector("text-must-fail", "multi-line: the column counts bytes, not characters")
        )


def test_depth_off_by_one_is_caught(mutate):
    real = _python.dumps
    mutate.setattr(_python, "dumps", lambda obj, max_depth: real(obj, max_depth + 1))
    with pytest.raises(CHECK_FAILED):
        differential.test_max_depth_is_exact(_python, "list", 3)


def test_int_domain_off_by_one_is_caught(mutate):
    mutate.setattr(_python, "INT_MAX", 2**53)
    with pytest.raises(CHECK_FAILED):
        differential.check_same_as_rfc8785(fastjcs.dumps, 2**53)


def test_leaky_dump_is_caught(mutate):
    def leaky_dump(obj, fp, *, max_depth=10_000):
        fp.write(b"[")  # streams before it knows the whole value is good
        fp.write(fastjcs.dumps(obj, max_depth=max_depth)[1:])

    mutate.setattr(fastjcs, "dump", leaky_dump)
    with pytest.raises(CHECK_FAILED):
        differential.test_dump_writes_nothing_on_failure(_python, "NaN late in a long list")


def test_lenient_duplicates_are_caught(mutate):
    def no_dup_check(data, max_depth, strict_integers, integers_only=False):  # json.loads: the last duplicate wins
        return _python.dumps(json.loads(data), max_depth)

    mutate.setattr(_python, "canonicalize", no_dup_check)
    with pytest.raises(CHECK_FAILED):
        _must_fail("same name twice")


def test_a_wrong_error_class_is_caught(mutate):
    # Overflow reported as a syntax error instead of a FloatDomainError.
    real = _python.canonicalize

    def overflow_as_syntax(data, max_depth, strict_integers, integers_only=False):
        try:
            return real(data, max_depth, strict_integers, integers_only)
        except fastjcs.FloatDomainError as exc:
            raise fastjcs.InvalidJSONError("overflow", data, exc.offset) from None

    mutate.setattr(_python, "canonicalize", overflow_as_syntax)
    with pytest.raises(CHECK_FAILED):
        _must_fail("1e400 overflows")


def test_checks_pass_on_the_real_backend(mutate):
    # The control: the same checks, unmutated, pass.
    properties.check_utf16_order(fastjcs.dumps, properties.UTF16_WITNESSES)
    differential.check_same_as_rfc8785(fastjcs.dumps, ["\x1f", 1e-7, 2**53 - 1])
    differential.test_max_depth_is_exact(_python, "list", 3)
    differential.test_dump_writes_nothing_on_failure(_python, "NaN late in a long list")
    _must_fail("same name twice")
    sink = io.BytesIO()
    fastjcs.dump([1], sink)
    assert sink.getvalue() == b"[1]"
