"""Replay the fuzz seeds and the reproducers of fixed bugs through the fuzz checks.

Every file of fuzz/corpus/<harness>/ and fuzz/regressions/<harness>/ goes through the check of its
harness (fuzz/fuzzlib.py for the atheris ones; for the C harnesses, the same properties checked
from Python). In the plain suite this holds both backends to each other on the seeds; under
.ci/asan.sh it replays every past finding against the sanitized extension.
"""

from __future__ import annotations

import sys

import pytest
from conftest import FUZZ

if not (FUZZ / "fuzzlib.py").is_file():  # pragma: no cover - a copy of tests/ without fuzz/
    pytest.skip("fuzz/ is not beside tests/", allow_module_level=True)

sys.path.insert(0, str(FUZZ))
import fuzzlib  # noqa: E402

pytestmark = pytest.mark.usefixtures("native")


def _files(harness: str) -> list:
    found = []
    for kind in ("corpus", "regressions"):
        directory = FUZZ / kind / harness
        if directory.is_dir():
            found += [pytest.param(p, id=f"{kind}/{harness}/{p.name}") for p in sorted(directory.iterdir())]
    return found


@pytest.mark.parametrize("path", _files("fuzz_text") + _files("atheris_text"))
def test_text_inputs(path):
    fuzzlib.check_text(path.read_bytes())


@pytest.mark.parametrize("path", _files("atheris_dumps"))
def test_dumps_inputs(path):
    fuzzlib.check_dumps(path.read_bytes())


@pytest.mark.parametrize("path", _files("atheris_walker"))
def test_walker_inputs(path):
    fuzzlib.check_walker(path.read_bytes())


_MARSHAL_CODES = {
    "FJCS_OK",
    "FJCS_E_NOMEM",
    "FJCS_E_SURROGATE",
    "FJCS_E_DUPKEY",
    "FJCS_E_DEPTH",
    "FJCS_E_FLOAT_DOMAIN",
    "FJCS_E_INT_DOMAIN",
    "FJCS_E_TYPE",
    "FJCS_E_KEY_TYPE",
    "FJCS_E_CYCLE",
    "FJCS_E_ENCODING",
}


def _marshal(data: bytes, max_depth: int):
    from fastjcs._native_ext import ffi, lib

    out = ffi.new("fjcs_buf *")
    err = ffi.new("fjcs_error *")
    try:
        rc = lib.fjcs_canonicalize_marshal(data, len(data), max_depth, 0, out, err)
        return rc, err.offset, ffi.unpack(out.data, out.len) if rc == lib.FJCS_OK else None
    finally:
        lib.fjcs_buf_free(out)


@pytest.mark.parametrize("path", _files("fuzz_marshal"))
def test_marshal_inputs(path, native):
    from fastjcs._native_ext import lib

    data = path.read_bytes()
    codes = {getattr(lib, name) for name in _MARSHAL_CODES}
    for depth in (10_000, 3, 0):
        rc, offset, out = _marshal(data, depth)
        assert rc in codes
        assert offset <= len(data)
        if rc == lib.FJCS_OK:  # canonical JSON: the text path leaves it as it is
            assert native.canonicalize(out, 10_000, False) == out


def test_empty_dict_regression(native):
    """fuzz_marshal found NULL + 0 (undefined behaviour) when a dict with no members closed before
    any member had ever been read: fuzz/regressions/fuzz_marshal/empty-dict*.bin."""
    for name in ("empty-dict.bin", "empty-dict-flagged.bin"):
        assert _marshal((FUZZ / "regressions" / "fuzz_marshal" / name).read_bytes(), 10)[2] == b"{}"
    assert native.dumps({}, 10) == b"{}"
    assert native.dumps([{}, {"a": {}}], 10) == b'[{},{"a":{}}]'
