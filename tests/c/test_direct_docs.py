"""csrc/cpython/direct_docs.h is generated: the committed bytes must be what
csrc/cpython/gen_direct_docs.py writes from src/fastjcs/core/api.py and digests.py, so that the C
docstrings of the direct entry's public functions cannot drift from the Python ones.
What the built functions show is checked in tests/test_public_docs.py."""

from __future__ import annotations

import importlib.util
import inspect

import pytest
from conftest import REPO

from fastjcs.core import api, digests

GENERATOR = REPO / "csrc" / "cpython" / "gen_direct_docs.py"
HEADER = REPO / "csrc" / "cpython" / "direct_docs.h"
API_SOURCE = REPO / "src" / "fastjcs" / "core" / "api.py"
pytestmark = pytest.mark.skipif(
    not API_SOURCE.is_file(), reason="the generator reads the source tree's api.py, which is not beside this run"
)


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("gen_direct_docs", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_header_is_what_the_generator_writes(gen):
    assert HEADER.read_text("utf-8") == gen.render(), (
        "csrc/cpython/direct_docs.h is stale or edited by hand: rerun csrc/cpython/gen_direct_docs.py"
    )


def test_the_docstrings_are_the_python_functions(gen):
    """Re-derived from the imported functions (inspect, not the generator's ast reading)."""
    docs = gen.all_docstrings()
    for name, fn in (
        ("dumps", api._python_dumps),
        ("dump", api._python_dump),
        ("canonicalize", api._python_canonicalize),
        ("format_double", api._python_format_double),
        ("digest", digests._python_digest),
        ("digest_text", digests._python_digest_text),
        ("digest_many", digests._python_digest_many),
    ):
        signature, rest = docs[name].split("\n--\n\n")
        assert rest == inspect.cleandoc(fn.__doc__)
        plain = inspect.signature(fn).replace(
            parameters=[p.replace(annotation=p.empty) for p in inspect.signature(fn).parameters.values()],
            return_annotation=inspect.Signature.empty,
        )
        assert signature == f"{name}($module, {str(plain)[1:]}"


def test_a_changed_docstring_changes_the_header(gen):
    source = gen.API.read_text("utf-8")
    changed = source.replace("Return the RFC 8785 canonical form of a Python value", "Return something")
    assert changed != source
    assert gen.docstrings(changed)["dumps"] != gen.docstrings(source)["dumps"]


def test_c_string_escapes(gen):
    # a quote, a backslash, a question mark (no trigraph), a non-ASCII character as UTF-8 octal
    assert gen.c_string('a"\\??=\u00e9\nb') == '"a\\"\\\\\\?\\?=\\303\\251\\n" \\\n    "b"'
