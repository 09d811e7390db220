"""csrc/pow5_table.h is generated: the committed bytes must be what csrc/gen_pow5_table.py writes.

Nothing in the table is typed by hand; this test regenerates it in memory and compares byte for
byte, and checks a few entries against a computation that does not share the generator's code.
"""

from __future__ import annotations

import importlib.util
import re
from fractions import Fraction

import pytest
from conftest import REPO as ROOT

HEADER = ROOT / "csrc" / "pow5_table.h"
GENERATOR = ROOT / "csrc" / "gen_pow5_table.py"


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("gen_pow5_table", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def committed_entries() -> dict[int, int]:
    text = HEADER.read_text(encoding="utf-8")
    entries = re.findall(r"\{0x([0-9a-f]{16})u, 0x([0-9a-f]{16})u\}, /\* 5\^(-?\d+) \*/", text)
    return {int(q): (int(hi, 16) << 64) | int(lo, 16) for hi, lo, q in entries}


def test_header_is_what_the_generator_writes(gen):
    assert HEADER.read_bytes() == gen.render().encode("utf-8"), (
        "csrc/pow5_table.h is stale or edited by hand: rerun csrc/gen_pow5_table.py"
    )


def test_header_names_its_generator():
    head = HEADER.read_text(encoding="utf-8").splitlines()[:3]
    assert any("gen_pow5_table.py" in line for line in head)


def test_entries_are_truncated_leading_bits_of_pow5():
    # Independent of the generator: T_q is the integer in [2^127, 2^128) with
    # T_q <= 5^q * 2^s < T_q + 1 for the one shift s that lands it there.
    entries = committed_entries()
    assert sorted(entries) == list(range(-342, 309))
    for q in (-342, -341, -28, -27, -5, -1, 0, 1, 27, 55, 56, 100, 307, 308):
        value = Fraction(5) ** q
        s = 0
        while value * Fraction(2) ** s >= 2**128:
            s -= 1
        while value * Fraction(2) ** s < 2**127:
            s += 1
        scaled = value * Fraction(2) ** s
        assert entries[q] <= scaled < entries[q] + 1, q


def test_exactness_bound(gen):
    # 5^55 < 2^128 <= 5^56: beyond q = 55 the table is truncated, and number_parse.c must not
    # treat a product there as exact (it would then detect ties that are not ties).
    assert gen.exact_max_q() == 55
    assert (5**55).bit_length() <= 128 < (5**56).bit_length()
    assert "#define FJCS_POW5_EXACT_MAX_Q 55" in HEADER.read_text(encoding="utf-8")


def test_log2_multiplier_check_catches_the_floor_constant(gen):
    # The mutant: the natural constant floor(log2(5) * 2^16) = 152169 is wrong at q = -292, and
    # the generator's search rejects it; the constant it keeps is exact over the whole range.
    assert gen.c_floor_log2_pow5(-292, 152169) != gen.floor_log2_pow5(-292)
    mul = gen.log2_5_multiplier()
    assert all(gen.c_floor_log2_pow5(q, mul) == gen.floor_log2_pow5(q) for q in range(-342, 309))
    assert f"#define FJCS_LOG2_5_MUL {mul}" in HEADER.read_text(encoding="utf-8")
