"""Fail on any symbol version newer than manylinux2014 allows, in shared objects or wheels.

    python .ci/symbols.py FILE...      (FILE: a .so, or a .whl whose every .so is scanned)

manylinux2014 (PEP 599) is CentOS 7's userland: glibc 2.17, libstdc++ of GCC 4.8 (GLIBCXX_3.4.19,
CXXABI_1.3.7) and libgcc_s GCC_4.8.0. A shared object that asks for a newer version of one of these
does not load there ("version `GLIBC_2.34' not found"), whatever tag the wheel carries. The scan
reads, with binutils' readelf, both what the dynamic symbols are bound to (to name the culprit:
`pthread_key_create@GLIBC_2.34`) and the version-needs section (what the loader checks, even for a
version that no symbol names). Exit 0 and one summary line when all is within the limits; exit 1
and one line per offence otherwise; exit 2 on a file that cannot be read.

This is auditwheel's check made independent of auditwheel: `auditwheel repair` picks the newest
tag a wheel needs unless told a policy, and its show command reports a tag, not a reason.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# PEP 599's limits, by version family (the families a C or C++ extension links against).
LIMITS: dict[str, tuple[int, ...]] = {
    "GLIBC": (2, 17),
    "GLIBCXX": (3, 4, 19),
    "CXXABI": (1, 3, 7),
    "GCC": (4, 8, 0),
}
_VERSION = re.compile(r"^(GLIBC|GLIBCXX|CXXABI|GCC)_([0-9]+(?:\.[0-9]+)*)$")
_SYMBOL = re.compile(r"\s(\S+)@(\S+?)(?:\s|$)")  # readelf --dyn-syms: name@VERSION (n)
_NEED = re.compile(r"Name:\s+(\S+)\s+Flags:")  # readelf -V: the version-needs entries


def too_new(version: str) -> bool:
    """Whether a symbol version is newer than manylinux2014 allows (other families: not judged)."""
    m = _VERSION.match(version)
    if m is None:
        return False
    return tuple(int(p) for p in m.group(2).split(".")) > LIMITS[m.group(1)]


def _readelf(*args: str) -> str:
    proc = subprocess.run(["readelf", "-W", *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise OSError(proc.stderr.strip() or f"readelf {' '.join(args)} failed")
    return proc.stdout


def offences(so: Path) -> list[str]:
    """The symbols (name@VERSION) and needed versions of `so` newer than manylinux2014 allows."""
    found = []
    for line in _readelf("--dyn-syms", str(so)).splitlines():
        if " UND " not in line:
            continue
        m = _SYMBOL.search(line)
        if m and too_new(m.group(2)):
            found.append(f"{m.group(1)}@{m.group(2)}")
    named = {f.split("@", 1)[1] for f in found}
    for version in _NEED.findall(_readelf("-V", str(so))):
        if too_new(version) and version not in named:
            found.append(f"(needed version) {version}")
    return found


def scan(paths: list[Path]) -> tuple[list[str], int]:
    """Every offence as 'FILE: symbol', and how many shared objects were read."""
    problems: list[str] = []
    count = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            if path.suffix == ".whl":
                with zipfile.ZipFile(path) as whl:
                    members = [n for n in whl.namelist() if re.search(r"\.so(\.|$)", n)]
                    if not members:
                        raise OSError(f"{path}: no shared object in the wheel")
                    for name in members:
                        target = Path(tmp) / str(count) / name
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(whl.read(name))
                        problems += [f"{path.name}:{name}: {o}" for o in offences(target)]
                        count += 1
            else:
                problems += [f"{path}: {o}" for o in offences(path)]
                count += 1
    return problems, count


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python .ci/symbols.py FILE.so|FILE.whl...", file=sys.stderr)
        return 2
    if shutil.which("readelf") is None:
        print("symbols: readelf (binutils) is not installed", file=sys.stderr)
        return 2
    try:
        problems, count = scan([Path(a) for a in argv])
    except (OSError, zipfile.BadZipFile) as exc:
        print(f"symbols: cannot read: {exc}", file=sys.stderr)
        return 2
    for p in problems:
        print(f"symbols: newer than manylinux2014 (glibc 2.17): {p}", file=sys.stderr)
    if problems:
        print(f"symbols: FAILED: {len(problems)} symbol(s) newer than manylinux2014", file=sys.stderr)
        return 1
    print(f"symbols: {count} shared object(s), no symbol version newer than manylinux2014 (glibc 2.17)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
