"""The layers: `import fastjcs` loads only the core, and imports run only downward,
cli -> lab -> (conformance, bulk) -> (eab, profiles -> cpb) -> core, with eab and cpb independent
of each other, and conformance and bulk too (profiles: what draft -06 moved out of the CPB core,
typed references; `fastjcs.arrow` and `fastjcs.dask`, the public names of bulk's modules, count as
bulk).

The import check reads the syntax trees of the package (imports inside functions included), so a
lazy upward import cannot slip past it; a second test shows it catches one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import _cli
import pytest

import fastjcs

PACKAGE = Path(fastjcs.__file__).resolve().parent

#: Each layer and what it may import besides itself.
MAY_IMPORT = {
    "core": {"core"},
    "eab": {"core"},
    "cpb": {"core"},
    "profiles": {"core", "cpb"},
    "bulk": {"core", "eab", "cpb", "profiles"},
    "conformance": {"core", "eab", "cpb", "profiles"},
    "lab": {"core", "eab", "cpb", "profiles", "conformance", "bulk"},
    "cli": {"core", "eab", "cpb", "profiles", "conformance", "bulk", "lab"},
}


def _layer(module: str) -> str:
    """The layer of a module (or name) of the package: its first component under fastjcs; the
    package's own __init__ and names (`__version__`) and the C extension belong to the core,
    __main__ to the CLI."""
    parts = module.split(".")
    first = parts[1] if len(parts) > 1 else "core"
    if first == "__main__":
        return "cli"
    if first in ("arrow", "dask"):
        return "bulk"
    return first if first in MAY_IMPORT else "core"


def _imported(module: str, source: str) -> list[str]:
    """The modules of the package that `source` (the text of `module`) imports, resolved."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _from(module, node)
            # `from . import x` names submodules: each is an import of its own
            found += [f"{target}.{a.name}" for a in node.names] if not node.module else [target]
    return [name for name in found if name == "fastjcs" or name.startswith("fastjcs.")]


def _from(module: str, node: ast.ImportFrom) -> str:
    """The module a `from ... import` in `module` imports from, resolved."""
    package = module.split(".") if module.endswith("__init__") else module.split(".")[:-1]
    package = [p for p in package if p != "__init__"]
    base = package[: len(package) - node.level + 1] if node.level else []
    return ".".join(base + ([node.module] if node.module else []))


def private_cpb_imports(sources: dict[str, str]) -> list[str]:
    """ "module -> target" for every import, from outside cpb, of a cpb module or name whose name
    starts with "_" (`cpb._digest`, `cpb._scan.top_level_spans`): the rest of the package stands on
    cpb's public names, so cpb's insides can change without breaking a caller."""
    bad = []
    for module, source in sorted(sources.items()):
        if _layer(module) == "cpb":
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = [f"{_from(module, node)}.{a.name}" for a in node.names]
            else:
                continue
            for target in targets:
                parts = target.split(".")
                if parts[:2] == ["fastjcs", "cpb"] and any(p.startswith("_") for p in parts[2:]):
                    bad.append(f"{module} -> {target}")
    return bad


def upward_imports(sources: dict[str, str]) -> list[str]:
    """ "module -> target" for every import that does not run downward."""
    bad = []
    for module, source in sorted(sources.items()):
        layer = _layer(module)
        for target in _imported(module, source):
            if _layer(target) not in MAY_IMPORT[layer] and _layer(target) != layer:
                bad.append(f"{module} -> {target}")
    return bad


def package_sources() -> dict[str, str]:
    sources = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).with_suffix("")
        sources[".".join(("fastjcs",) + rel.parts)] = path.read_text(encoding="utf-8")
    return sources


def test_imports_run_only_downward():
    sources = package_sources()
    assert {_layer(m) for m in sources} == set(MAY_IMPORT)
    assert upward_imports(sources) == []


def test_the_check_catches_an_upward_or_sideways_import():
    sources = {
        "fastjcs.core.api": "def f():\n    from ..lab import bench\n",
        "fastjcs.core.errors": "import fastjcs.eab\n",
        "fastjcs.eab.bindings": "from ..cpb import check\n",
        "fastjcs.cpb.checker": "from fastjcs.cli import main\n",
        "fastjcs.lab.bench": "from .. import cli\n",
        "fastjcs.bulk.dask": "from ..conformance import reader\n",
        "fastjcs.dask": "from .lab import corpus\n",
        "fastjcs.conformance.protocol": "from ..lab import peers\n",
        "fastjcs.cli.bench": "from ..lab import bench\nfrom ..core import api\n",
        "fastjcs.__init__": "from .core import api\n",
    }
    assert upward_imports(sources) == [
        "fastjcs.bulk.dask -> fastjcs.conformance",
        "fastjcs.conformance.protocol -> fastjcs.lab",
        "fastjcs.core.api -> fastjcs.lab",
        "fastjcs.core.errors -> fastjcs.eab",
        "fastjcs.cpb.checker -> fastjcs.cli",
        "fastjcs.dask -> fastjcs.lab",
        "fastjcs.eab.bindings -> fastjcs.cpb",
        "fastjcs.lab.bench -> fastjcs.cli",
    ]


def test_no_module_outside_cpb_imports_a_private_cpb_name():
    assert private_cpb_imports(package_sources()) == []


def test_the_check_catches_a_private_cpb_import():
    sources = {
        # what conformance imported before it used cpb's public names
        "fastjcs.conformance.cpb_vectors": "from ..cpb import _digest, checker\nfrom ..cpb.errors import CPBError\n",
        "fastjcs.conformance.protocol": "def f():\n    from ..cpb._scan import top_level_spans\n",
        "fastjcs.lab.peers": "import fastjcs.cpb._identifiers\nfrom fastjcs.cpb import check\n",
        "fastjcs.cli.check": "from ..cpb.registry import _parse\n",
        "fastjcs.cpb.checker": "from ._scan import scan\nfrom . import _digest\n",  # cpb's own
    }
    assert private_cpb_imports(sources) == [
        "fastjcs.cli.check -> fastjcs.cpb.registry._parse",
        "fastjcs.conformance.cpb_vectors -> fastjcs.cpb._digest",
        "fastjcs.conformance.protocol -> fastjcs.cpb._scan.top_level_spans",
        "fastjcs.lab.peers -> fastjcs.cpb._identifiers",
    ]


def test_import_fastjcs_loads_only_the_core():
    code = "import fastjcs, sys; print(sorted(m for m in sys.modules if m.startswith('fastjcs')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_cli.env(), check=True)
    loaded = eval(done.stdout)
    assert "fastjcs.core.api" in loaded
    assert [m for m in loaded if _layer(m) != "core"] == []


def test_the_bulk_modules_load_no_lab_conformance_or_cli_module():
    """What a Dask worker imports (`fastjcs.dask`, `fastjcs.arrow`) stands on the bulk layer and
    the layers under it: no lab, conformance or CLI module comes with it."""
    pytest.importorskip("dask")
    pytest.importorskip("pyarrow")
    code = "import fastjcs.dask, fastjcs.arrow, sys; print(sorted(m for m in sys.modules if m.startswith('fastjcs')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_cli.env(), check=True)
    loaded = eval(done.stdout)
    assert "fastjcs.bulk.dask" in loaded and "fastjcs.bulk.jobs" in loaded
    assert [m for m in loaded if _layer(m) in ("lab", "conformance", "cli")] == []


def _missing(sources: dict[str, str]) -> list[str]:
    """ "module -> target" for every import of a package module that does not exist (a lazy import
    inside a function, left behind by a move, fails only when that function runs)."""
    known = {m.removesuffix(".__init__") for m in sources} | {"fastjcs._native_ext", "fastjcs._direct"}
    bad = []
    for module, source in sorted(sources.items()):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.level and not node.module:
                continue  # `from . import x`: x may be a name of the package rather than a module
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bad += [f"{module} -> {t}" for t in _imported(module, ast.unparse(node)) if t not in known]
    return bad


def test_every_import_of_the_package_names_a_module_that_exists():
    assert _missing(package_sources()) == []
    moved = {
        "fastjcs.bulk.__init__": "",
        "fastjcs.bulk.arrow": "def f():\n    from .core import backends\n    from ..core import backends\n",
        "fastjcs.core.__init__": "",
        "fastjcs.core.backends": "",
    }
    assert _missing(moved) == ["fastjcs.bulk.arrow -> fastjcs.bulk.core"]


#: The backends and what only they use: the C extensions and the modules that call them, and the
#: pure-Python backend. Every other layer reaches a backend through `fastjcs.core.api` or
#: `fastjcs.core.backends` (`impl()`, `load()`, `arrow_columns()`), so that the backend a process
#: runs on is chosen in one place (FASTJCS_BACKEND) and a test that swaps it (`backends.use`) swaps it
#: for the whole stack.
BACKEND_MODULES = {
    "fastjcs.core.python_backend",
    "fastjcs.core.native_backend",
    "fastjcs.core.native_errors",
    "fastjcs.core.native_hash",
    "fastjcs.core.native_stream",
    "fastjcs.core.arrow_native",
    "fastjcs.core._direct_loader",
    "fastjcs._native_ext",
    "fastjcs._direct",
}


def backend_imports(sources: dict[str, str]) -> list[str]:
    """ "module -> backend module" for every import of a backend module outside the core (names
    imported `from` a package count as modules: `from ..core import native_backend`)."""
    bad = []
    for module, source in sorted(sources.items()):
        if _layer(module) == "core" and module.startswith("fastjcs.core."):
            continue
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            targets = _imported(module, ast.unparse(node))
            if isinstance(node, ast.ImportFrom) and node.module:
                targets += [f"{targets[0]}.{a.name}" for a in node.names if targets]
            bad += [f"{module} -> {t}" for t in targets if t in BACKEND_MODULES]
    return bad


def test_only_the_core_imports_a_backend():
    assert backend_imports(package_sources()) == []


def test_the_backend_check_catches_a_direct_import():
    sources = {
        "fastjcs.cli.__init__": "def f():\n    from ..core import _direct_loader, native_backend\n",
        "fastjcs.lab.bench": "from ..core import python_backend as _python\n",
        "fastjcs.bulk.arrow": "def g():\n    from ..core import arrow_native as _c\n",
        "fastjcs.eab.bindings": "import fastjcs.core.native_hash\nfrom fastjcs import _native_ext\n",
        "fastjcs.__init__": "from .core import python_backend\n",
        "fastjcs.core.backends": "from . import python_backend, native_backend\n",
        "fastjcs.core.api": "from .backends import impl\n",
        "fastjcs.cpb.checker": "from ..core import backends, api\nfrom ..core.backends import impl\n",
    }
    assert backend_imports(sources) == [
        "fastjcs.__init__ -> fastjcs.core.python_backend",
        "fastjcs.bulk.arrow -> fastjcs.core.arrow_native",
        "fastjcs.cli.__init__ -> fastjcs.core._direct_loader",
        "fastjcs.cli.__init__ -> fastjcs.core.native_backend",
        "fastjcs.eab.bindings -> fastjcs.core.native_hash",
        "fastjcs.eab.bindings -> fastjcs._native_ext",
        "fastjcs.lab.bench -> fastjcs.core.python_backend",
    ]
