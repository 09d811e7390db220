#!/usr/bin/env python3
"""Generate csrc/cpython/direct_docs.h: the docstrings of the direct entry's public functions.

Usage:
    python csrc/cpython/gen_direct_docs.py            # rewrite csrc/cpython/direct_docs.h
    python csrc/cpython/gen_direct_docs.py --check    # exit 1 if the committed header differs

On CPython 3.10 and later, `fastjcs.dumps`, `dump`, `canonicalize`, `format_double`, `digest`,
`digest_text` and `digest_many` are C functions of the direct entry (direct.c's method table): what `help()`,
`inspect.signature` and an IDE show of them is their C docstring. Each is written here from the
Python function it stands for (src/fastjcs/core/api.py and digests.py, read as source, not
imported): a `__text_signature__` line with the function's parameters and their defaults, then its
docstring, cleaned as `inspect.cleandoc` cleans it. A change to their docstrings or signatures is a
change to this header (the test tests/c/test_direct_docs.py regenerates it and compares).
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
API = HERE.parents[1] / "src" / "fastjcs" / "core" / "api.py"
DIGESTS = API.with_name("digests.py")
HEADER = HERE / "direct_docs.h"
#: The C functions documented, and the macro naming each one's docstring (api.py's, then digests.py's).
FUNCTIONS = {
    "dumps": "FJCS_DOC_DUMPS",
    "dump": "FJCS_DOC_DUMP",
    "canonicalize": "FJCS_DOC_CANONICALIZE",
    "format_double": "FJCS_DOC_FORMAT_DOUBLE",
    "digest": "FJCS_DOC_DIGEST",
    "digest_text": "FJCS_DOC_DIGEST_TEXT",
    "digest_many": "FJCS_DOC_DIGEST_MANY",
}


def _constants(module: ast.Module) -> dict[str, object]:
    """The module's top-level NAME = <literal> assignments (DEFAULT_MAX_DEPTH, ...)."""
    found: dict[str, object] = {}
    for node in module.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return found


def text_signature(fn: ast.FunctionDef, constants: dict[str, object]) -> str:
    """The function's `__text_signature__` (`name($module, a, /, b, *, c=1)`): names and defaults,
    no annotations (CPython's signature parser takes none)."""
    a = fn.args
    if a.vararg or a.kwarg:
        raise ValueError(f"{fn.name}: *args and **kwargs cannot be written in a text signature")

    def default(node: ast.expr) -> str:
        value = constants[node.id] if isinstance(node, ast.Name) else ast.literal_eval(node)
        return repr(value)

    positional = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    parts = ["$module"]
    for i, (arg, d) in enumerate(zip(positional, defaults)):
        parts.append(arg.arg if d is None else f"{arg.arg}={default(d)}")
        if a.posonlyargs and i == len(a.posonlyargs) - 1:
            parts.append("/")
    if a.kwonlyargs:
        parts.append("*")
        for arg, d in zip(a.kwonlyargs, a.kw_defaults):
            parts.append(arg.arg if d is None else f"{arg.arg}={default(d)}")
    return f"{fn.name}({', '.join(parts)})"


def docstrings(source: str, constants: dict[str, object] | None = None) -> dict[str, str]:
    """The whole C docstring of each documented function the source defines: its text signature,
    `--`, its cleaned docstring. `constants`: names its defaults may use that it imports."""
    module = ast.parse(source)
    constants = {**(constants or {}), **_constants(module)}
    functions = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}
    out = {}
    for name in [n for n in FUNCTIONS if n in functions]:
        fn = functions[name]
        doc = ast.get_docstring(fn, clean=False)
        if not doc:
            raise ValueError(f"{name} has no docstring")
        out[name] = f"{text_signature(fn, constants)}\n--\n\n{inspect.cleandoc(doc)}"
    return out


def _c_char(b: int) -> str:
    """One byte of a C string literal: printable ASCII as itself (a backslash and a quote escaped,
    and `?`, so that no trigraph is written), anything else as an octal escape."""
    if b in b'\\"?':
        return f"\\{chr(b)}"
    return chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}"


def c_string(text: str) -> str:
    """The text's UTF-8 bytes as C string literals, one per line, joined by a macro's line ends."""
    lines = [("".join(map(_c_char, line))) for line in text.encode("utf-8").split(b"\n")]
    literals = [f'"{line}\\n"' for line in lines[:-1]] + [f'"{lines[-1]}"']
    return " \\\n    ".join(literals)


def all_docstrings() -> dict[str, str]:
    """Every documented function's C docstring: api.py's, and digests.py's (whose default depth is
    api.py's DEFAULT_MAX_DEPTH)."""
    api = API.read_text("utf-8")
    docs = {**docstrings(api), **docstrings(DIGESTS.read_text("utf-8"), _constants(ast.parse(api)))}
    missing = sorted(set(FUNCTIONS) - set(docs))
    if missing:
        raise ValueError(f"not defined in api.py or digests.py: {', '.join(missing)}")
    return docs


def render() -> str:
    docs = all_docstrings()
    out = [
        "/* Generated by csrc/cpython/gen_direct_docs.py from src/fastjcs/core/api.py and digests.py: do not edit.",
        " * The docstrings of the direct entry's public functions (direct.c's method table): each one's",
        " * __text_signature__ line, then the Python function's docstring (tests/c/test_direct_docs.py). */",
        "#ifndef FJCS_DIRECT_DOCS_H",
        "#define FJCS_DIRECT_DOCS_H",
        "",
    ]
    for name, macro in FUNCTIONS.items():
        out += [f"#define {macro} \\", f"    {c_string(docs[name])}", ""]
    out += ["#endif", ""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    text = render()
    if argv[1:] == ["--check"]:
        if HEADER.read_text("utf-8") != text:
            print(f"{HEADER.name} is stale: rerun {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    if argv[1:]:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    HEADER.write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
