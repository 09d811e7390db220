"""What `help()`, `inspect.signature` and an IDE show of the public callables: each one's own full
docstring and every parameter, on the direct route (CPython >= 3.10, where `fastjcs.dumps` and
`fastjcs.canonicalize` are C functions of fastjcs._direct) and on the cffi route (FASTJCS_DIRECT=0).

Each route runs in a child process (the route is chosen at import); the expected docstrings and
signatures are those of the Python functions of src/fastjcs/core/api.py, which the C functions
stand for (their docstrings are generated from them: csrc/cpython/gen_direct_docs.py).
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest
from _cli import env

from fastjcs.core import api, digests

#: The public modules whose callables are checked.
MODULES = ("fastjcs", "fastjcs.eab", "fastjcs.cpb", "fastjcs.profiles")

_REPORT = r"""
import importlib, inspect, json, sys
from fastjcs.core import backends  # the route: the native backend in use, its direct entry loaded?
out = {"direct": getattr(backends.impl(), "_direct", None) is not None, "callables": {}}
for modname in sys.argv[1:]:
    module = importlib.import_module(modname)
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isroutine(obj):
            sig = inspect.signature(obj)
            params = [(p.name, str(p.kind), repr(p.default)) for p in sig.parameters.values()]
            out["callables"][f"{modname}.{name}"] = {
                "type": type(obj).__name__, "doc": obj.__doc__, "params": params,
            }
print(json.dumps(out))
"""


def shown(direct: str) -> dict:
    p = subprocess.run(
        [sys.executable, "-c", _REPORT, *MODULES],
        env=env({"FASTJCS_DIRECT": direct}),
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr.decode()[-2000:]
    return json.loads(p.stdout)


def params_of(fn) -> list[list[str]]:
    return [[p.name, str(p.kind), repr(p.default)] for p in inspect.signature(fn).parameters.values()]


@pytest.fixture(scope="module", params=["1", "0"], ids=["direct", "cffi"])
def route(request):
    got = shown(request.param)
    if request.param == "1" and not got["direct"]:
        pytest.skip("no direct entry here (PyPy, CPython 3.9, the C core not built or not in use)")
    return request.param, got


def test_the_c_functions_show_the_python_functions_docstring_and_signature(route):
    direct, got = route
    for name, fn in (
        ("dumps", api._python_dumps),
        ("dump", api._python_dump),
        ("canonicalize", api._python_canonicalize),
        ("format_double", api._python_format_double),
        ("digest", digests._python_digest),
        ("digest_text", digests._python_digest_text),
        ("digest_many", digests._python_digest_many),
    ):
        shown_ = got["callables"][f"fastjcs.{name}"]
        # on the direct route they are the C functions (else this test would compare a function to itself)
        assert shown_["type"] == ("builtin_function_or_method" if direct == "1" else "function")
        assert inspect.cleandoc(shown_["doc"]) == inspect.cleandoc(fn.__doc__)
        assert shown_["params"] == params_of(fn)


def test_every_public_callable_has_its_docstring_and_its_parameters(route):
    _direct, got = route
    assert len(got["callables"]) > 40
    for name, shown_ in got["callables"].items():
        doc = shown_["doc"] or ""
        # a docstring of its own: a summary line, not a pointer to an internal module
        assert doc.strip() and "says it all" not in doc, name
        # every parameter named: no wrapper's (*args, **kwargs) in place of the function's own
        kinds = {kind for _name, kind, _default in shown_["params"]}
        assert not kinds & {"VAR_POSITIONAL", "VAR_KEYWORD"}, (name, shown_["params"])


def test_the_check_sees_a_pointer_docstring_and_a_lost_signature():
    """The mutants the checks above catch: a C function whose docstring defers to another
    module, and a wrapper that hides its function's parameters."""

    def wrapper(*args, **kwargs):
        """fastjcs.dumps: the canonical form of a Python value (fastjcs.core.api.dumps says it all)."""

    assert inspect.cleandoc(wrapper.__doc__) != inspect.cleandoc(api._python_dumps.__doc__)
    assert params_of(wrapper) != params_of(api._python_dumps)
    assert {k for _n, k, _d in params_of(wrapper)} & {"VAR_POSITIONAL", "VAR_KEYWORD"}
