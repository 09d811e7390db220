"""The shape of the C API (csrc/fastjcs.h, the block build_ffi.py reads as the cffi cdef) and what
the built extensions link.

- No exported function takes more than 10 parameters: what travels together is a struct
  (fjcs_hasher, fjcs_failures, fjcs_arrow_texts, fjcs_arrow_digests), as in yyjson's API. The
  counter is checked on a planted declaration of 11, so a parser that misses one cannot pass.
- The extensions link no symbol of glibc newer than 2.17 (manylinux2014): the core keeps no
  per-thread state behind pthread keys (GLIBC_2.34); the caller holds a lender.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "csrc" / "fastjcs.h"
MAX_PARAMETERS = 10
GLIBC_CEILING = (2, 17)


def cdef_block(text: str) -> str:
    """The declarations between the cffi markers, as build_ffi.py takes them."""
    sys.path.insert(0, str(ROOT))
    try:
        import build_ffi
    finally:
        sys.path.remove(str(ROOT))
    return build_ffi._cdef_from_header(text)


def parameter_counts(cdef: str) -> dict[str, int]:
    """Each function declared in `cdef` (not typedefs of function pointers) and its parameters."""
    text = re.sub(r"/\*.*?\*/", " ", cdef, flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    while True:  # struct and enum bodies hold semicolons of their own
        stripped = re.sub(r"\{[^{}]*\}", " ", text)
        if stripped == text:
            break
        text = stripped
    counts: dict[str, int] = {}
    for statement in text.split(";"):
        statement = " ".join(statement.split())
        if not statement or statement.startswith("typedef"):
            continue
        match = re.fullmatch(r"[\w\s\*]*?\**\s*(\w+)\s*\((.*)\)", statement)
        assert match is not None, f"not a declaration this test reads: {statement!r}"
        name, params = match.groups()
        depth, n = 0, 1
        for ch in params:
            depth += ch == "("
            depth -= ch == ")"
            n += ch == "," and depth == 0
        counts[name] = 0 if params.strip() in ("", "void") else n
    return counts


def too_wide(cdef: str) -> list[str]:
    return sorted(f"{name} ({n})" for name, n in parameter_counts(cdef).items() if n > MAX_PARAMETERS)


def test_no_exported_function_takes_more_than_ten_parameters():
    counts = parameter_counts(cdef_block(HEADER.read_text(encoding="utf-8")))
    # the reader sees the API: every family, with the counts its declarations have
    assert counts["fjcs_canonicalize"] == 6
    assert counts["fjcs_lender_open"] == 0
    assert counts["fjcs_lender_digest_text"] == 6
    assert counts["fjcs_arrow_canonicalize"] == 10
    assert counts["fjcs_arrow_digest"] == 9
    assert len(counts) >= 15
    assert too_wide(cdef_block(HEADER.read_text(encoding="utf-8"))) == []


def test_the_counter_catches_a_planted_wide_function():
    planted = HEADER.read_text(encoding="utf-8").replace(
        "/* ---- cffi:end ---- */",
        """fjcs_code fjcs_planted(const char *a, size_t b, size_t c, fjcs_flags d, const fjcs_hasher *e,
                        uint8_t *f, int64_t *g, uint8_t *h, fjcs_failures *i, size_t *j,
                        size_t *k);
typedef struct fjcs_planted_s { int x; int y; } fjcs_planted_s;
void fjcs_planted_ok(int (*cb)(int, int), int a);
/* ---- cffi:end ---- */""",
    )
    counts = parameter_counts(cdef_block(planted))
    assert counts["fjcs_planted"] == 11 and counts["fjcs_planted_ok"] == 2
    assert too_wide(cdef_block(planted)) == ["fjcs_planted (11)"]


def _glibc_versions(path: Path) -> set[tuple[int, ...]]:
    run = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True, check=True)
    return {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)\)?\s", run.stdout)}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc symbol versions")
@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")
def test_the_extensions_link_nothing_newer_than_glibc_2_17():
    import fastjcs

    built = sorted(Path(fastjcs.__file__).parent.glob("_*.so"))
    if not built:
        pytest.skip("no C extension built")
    newer = {
        path.name: sorted(".".join(map(str, v)) for v in _glibc_versions(path) if v > GLIBC_CEILING) for path in built
    }
    assert {name: found for name, found in newer.items() if found} == {}
    assert all(_glibc_versions(path) for path in built)  # the scan reads the versions at all
