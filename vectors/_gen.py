"""What the suite generators share: write their files, or check that the committed ones match.

    gen_X.py [--out DIR] [--check]

Without --check, every file is (re)written under DIR. With --check nothing is written, and the run
fails (exit 1) if a file differs from what the generator makes, is missing, or is there without
the generator making it (files under the subfolders named in `others` belong to another
generator and are left to it).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def sync(files: dict[str, str], default_out: Path, argv: list[str], others: Sequence[str] = ()) -> int:
    """Write or check `files` (path relative to the output folder -> text); the exit status."""
    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else default_out
    stale = []
    for name, text in sorted(files.items()):
        path = out / name
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if out.exists():
        present = (p.relative_to(out) for p in out.rglob("*") if p.is_file())
        stale += sorted(p.as_posix() for p in present if p.parts[0] not in others and p.as_posix() not in files)
    if stale:
        print("stale or extra:", ", ".join(stale))
        return 1
    return 0
