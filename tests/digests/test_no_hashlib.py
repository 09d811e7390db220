"""No module of fastjcs imports hashlib (digests go through pycryptodome), and only
fastjcs.core.hashing imports pycryptodome's Crypto.Hash (every digest goes through it).

The check reads the syntax trees of the package under test (the source tree's, or the installed
copy's when the tests run against an installed package), so it sees imports inside functions and behind
conditions, which an import-time check of sys.modules would miss; and a second test shows it flags
every spelling of the import.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable

import fastjcs

PACKAGE = Path(fastjcs.__file__).resolve().parent
FORBIDDEN = {"hashlib", "_hashlib"}
_IMPORT_FUNCTIONS = {"__import__", "import_module"}


def _forbidden(name: str) -> bool:
    return name.split(".")[0] in FORBIDDEN


def _crypto_hash(name: str) -> bool:
    return name == "Crypto.Hash" or name.startswith("Crypto.Hash.")


def hashlib_imports(root: Path, forbidden: Callable[[str], bool] = _forbidden) -> list[str]:
    """`file:line` of every import of hashlib (or of what `forbidden` names) under `root`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                first = node.args[0] if node.args else None
                if called in _IMPORT_FUNCTIONS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names = [first.value]
            if any(forbidden(name) for name in names):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_the_scan_covers_the_package():
    files = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}
    assert {
        "__init__.py",
        "core/digests.py",
        "core/hashing.py",
        "eab/bindings.py",
        "eab/registry.py",
        "core/python_backend.py",
        "cpb/_digest.py",
        "conformance/protocol.py",
        "cli/__init__.py",
    } <= files


def test_the_package_never_imports_hashlib():
    assert hashlib_imports(PACKAGE) == []


def test_only_the_hashing_module_imports_crypto_hash():
    found = {entry.split(":")[0] for entry in hashlib_imports(PACKAGE, _crypto_hash)}
    assert found == {"core/hashing.py"}


def test_the_scan_flags_every_spelling_of_crypto_hash(tmp_path):
    spellings = [
        "from Crypto.Hash import SHA256",
        "import Crypto.Hash.SHA384 as h",
        "from Crypto import Hash",
        "def f():\n    from Crypto.Hash import SHA256\n",
        "__import__('Crypto.Hash.SHA256')",
    ]
    for number, source in enumerate(spellings):
        (tmp_path / f"m{number}.py").write_text(source + "\n")
    (tmp_path / "clean.py").write_text("from Crypto.Util import _raw_api\nimport Crypto\n")
    flagged = {entry.split(":")[0] for entry in hashlib_imports(tmp_path, _crypto_hash)}
    assert flagged == {f"m{number}.py" for number in range(len(spellings))}


def test_the_scan_flags_every_spelling(tmp_path):
    spellings = [
        "import hashlib",
        "import os, hashlib as h",
        "from hashlib import sha256",
        "import _hashlib",
        "def f():\n    import hashlib\n",
        "try:\n    pass\nexcept ImportError:\n    from hashlib import new\n",
        "__import__('hashlib')",
        "import importlib\nimportlib.import_module('hashlib')",
        "from importlib import import_module\nimport_module('_hashlib')",
    ]
    for number, source in enumerate(spellings):
        (tmp_path / f"m{number}.py").write_text(source + "\n")
    (tmp_path / "clean.py").write_text("from Crypto.Hash import SHA256\nimport hmaclike\n")
    flagged = {entry.split(":")[0] for entry in hashlib_imports(tmp_path)}
    assert flagged == {f"m{number}.py" for number in range(len(spellings))}
