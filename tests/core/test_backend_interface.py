"""Both backends implement the backend interface (`fastjcs.core.protocol.Backend`): every
operation, with the Protocol's parameters, and nothing else is reached through the backends."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

import fastjcs
from fastjcs.core import backends, python_backend
from fastjcs.core import protocol as backend_interface

OPERATIONS = sorted(
    name
    for name, value in vars(backend_interface.Backend).items()
    if inspect.isfunction(value) and not name.startswith("_")
)
PACKAGE = Path(fastjcs.__file__).resolve().parent


def _parameters(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def test_the_protocol_lists_what_the_api_asks_of_a_backend():
    assert OPERATIONS == [
        "canonicalize",
        "canonicalize_to",
        "digest",
        "digest_lines_hex",
        "digest_many",
        "digest_many_rendered",
        "digest_text",
        "digest_texts",
        "dumps",
        "format_double",
    ]


@pytest.mark.parametrize("name", OPERATIONS)
def test_each_backend_implements_each_operation(backend, name):
    assert backend.NAME in ("python", "native")
    fn = getattr(backend, name)
    assert callable(fn)
    assert _parameters(fn) == _parameters(getattr(backend_interface.Backend, name))


def test_backend_names_the_backend_in_use_and_follows_a_swap(backend, swap_backend):
    assert fastjcs.backend() == backend.NAME  # the fixture swapped the backend in use
    swap_backend(python_backend)
    assert fastjcs.backend() == "python"
    assert backends.impl() is python_backend


def _backend_uses(path: Path):
    """(line, attribute) of every `<x>._impl` or `<x>.impl()` reached outside the core."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.attr) for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "_impl"
    ]


def test_only_the_core_api_and_backends_read_the_backend_variable():
    readers = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if _backend_uses(p)}
    assert readers <= {"core/api.py"}
    assert "core/api.py" in readers


def _impl_assignments(path: Path):
    """Lines of `x._impl = ...` and `setattr(x, "_impl", ...)`: a swap that bypasses
    `backends.use`, which the direct entry's public functions would not follow."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Attribute) and t.attr == "_impl" for t in targets):
            found.append(node.lineno)
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "setattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value == "_impl"
        ):
            found.append(node.lineno)
    return found


def test_the_backend_is_swapped_only_through_use(tmp_path):
    """Nothing in the package, the tests or the benchmarks sets `backends._impl` but `use`
    itself: a test that did (as monkeypatch.setattr once did) would leave the C functions serving
    on the native backend while the Python layers ran on the other."""
    tests = Path(__file__).resolve().parents[1]
    dirs = [PACKAGE, tests] + [d for d in [tests.parent / "benchmarks"] if d.is_dir()]
    offenders = {p.as_posix(): lines for d in dirs for p in d.rglob("*.py") if (lines := _impl_assignments(p))}
    assert offenders == {}
    assert len([p for d in dirs for p in d.rglob("*.py")]) > 100  # it read the package and the tests
    planted = tmp_path / "planted.py"  # the check can fail: both forms are found
    planted.write_text('backends._impl = x\nmonkeypatch.setattr(backends, "_impl", y)\n', "utf-8")
    assert _impl_assignments(planted) == [1, 2]


def test_what_other_layers_reach_through_backends_follows_the_backend_in_use(backend, swap_backend):
    """The doors of `backends` for the layers above (the benchmark's `load`, fastjcs.arrow's
    `arrow_columns`, `--version --verbose`'s `native_report`) answer for the backend in use."""
    assert backends.load("python") is python_backend
    assert backends.load(backend.NAME) is backend
    with pytest.raises(ValueError, match="'native' or 'python'"):
        backends.load("c")
    if backend.NAME == "native":
        from fastjcs.core import arrow_native

        assert backends.arrow_columns() is arrow_native
        path, small_calls, oneshot = backends.native_report()
        assert path.endswith((".so", ".pyd")) and small_calls and isinstance(oneshot, bool)
    swap_backend(python_backend)
    assert backends.arrow_columns() is None
    assert backends.native_report() is None


#: What C once read of Python state to decide a route (issue 33): the backend variable, the text
#: route's constant, the hook that pushed a Python function into C, the binder of module dicts.
_PYTHON_STATE_NAMES = re.compile(r"_impl|DIRECT_TEXT|set_answer|bind_api")


def test_the_c_sources_name_no_python_state():
    """No file of csrc/ names the Python module state C used to read per call (the direct entry
    decides from its own state and the arguments); a name in a comment counts too, as it does for
    the grep this stands for. A planted line shows the pattern finds each name."""
    csrc = Path(__file__).resolve().parents[2] / "csrc"
    sources = [p for p in csrc.rglob("*") if p.suffix in (".c", ".h", ".py")]
    assert len(sources) > 20
    hits = [
        f"{p.relative_to(csrc)}:{n}"
        for p in sources
        for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
        if _PYTHON_STATE_NAMES.search(line)
    ]
    assert hits == []
    planted = 's->impl = get(backends, "_impl"); DIRECT_TEXT; set_answer(); bind_api();'
    assert len(_PYTHON_STATE_NAMES.findall(planted)) == 4
