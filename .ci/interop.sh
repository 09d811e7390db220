#!/usr/bin/env bash
# The interop lab in CI: every peer whose toolchain is on this machine, installed from its own
# registry at its pinned version (interop/setup.sh says "skip NAME: why" for any that cannot be),
# then the matrix over the fixed seed the published one uses (docs/interop-matrix.md).
#
# fastjcs runs beside the peers, through the same pipe, as the reference row: it must agree on
# every case, and the run must have compared something. The peers' own failures are the lab's
# findings (exit 1 of `fastjcs interop`), not CI failures. The matrix is written under
# .venv-ci/interop/ and printed; where its cells differ from the published page, the difference
# is shown.
#
# Usage: .ci/interop.sh PYTHON   (an interpreter with fastjcs installed; it gets the PyPI peers)
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:?usage: .ci/interop.sh PYTHON}
out=.venv-ci/interop
mkdir -p "$out"

bash interop/setup.sh --python "$py"

status=0
"$py" -m fastjcs interop --fastjcs --peers interop/build/peers.json \
    --corpus gen --corpus vectors:vectors --corpus es6:10000 --seed 8785 --per-category 100 \
    --no-progress --markdown "$out/matrix.md" --html "$out/matrix.html" --json "$out/matrix.json" \
    >"$out/matrix.txt" || status=$?
if [ "$status" -gt 1 ]; then
    echo "FAILED: fastjcs interop exited $status"
    exit 1
fi
cat "$out/matrix.md"

"$py" - "$out/matrix.json" docs/interop-matrix.md <<'PY'
import json, re, sys

report = json.load(open(sys.argv[1], encoding="utf-8"))
rows = {r["peer"]["name"]: r for r in report["results"]}
ours = rows.pop("fastjcs")
if not ours["ok"] or ours["answered"] != ours["cases"]:
    sys.exit(f"FAILED: fastjcs disagrees with its own corpus: {ours['totals']}")
languages = sorted({r["peer"]["language"] for r in rows.values()})
print(f"\nfastjcs agrees on all {ours['cases']} cases; {len(rows)} peer(s) in "
      f"{len(languages)} language(s): {', '.join(languages) or 'none'}")
for s in report["skipped"]:
    print(f"peer not run: {s['name']}: {s['why']}")

def cells(markdown):
    """peer -> the matrix cells but throughput (which moves from run to run)."""
    # (the page splits the matrix into tables of a few columns, each row led by its peer)
    table, head = {}, []
    for line in markdown.splitlines():
        if line.startswith("| peer "):
            head = [c.strip() for c in line.strip("|").split(" | ")]
        elif line.startswith("| ") and head and not set(line) <= set("|-: "):
            parts = [c.strip() for c in line.strip("|").split(" | ")]
            table.setdefault(parts[0], []).extend(c for h, c in zip(head[1:], parts[1:]) if h != "documents/s")
    return table

published = cells(open(sys.argv[2], encoding="utf-8").read())
now = cells(open(sys.argv[1].replace(".json", ".md"), encoding="utf-8").read())
changed = sorted(n for n in set(published) | set(now) if published.get(n) != now.get(n))
if changed:
    print("NOTE: cells differ from docs/interop-matrix.md for: " + ", ".join(changed))
    for n in changed:
        print(f"  published {n}: {published.get(n)}\n  this run  {n}: {now.get(n)}")
else:
    print("every cell matches docs/interop-matrix.md")
PY
