#!/usr/bin/env python3
"""Self-test of scripts/check-citations on two fixture trees: `good` must pass with every kind of
citation resolved, `bad` must fail with exactly the dangling citations of bad/expected.txt."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
checker = os.path.join(here, "..", "..", "scripts", "check-citations")
fixtures = os.path.join(here, "fixtures")


def run(name, *extra):
    p = subprocess.run([sys.executable, checker, "--root", os.path.join(fixtures, name), *extra],
                       capture_output=True, text=True)
    return p.returncode, [line for line in p.stdout.split("\n") if line]


failures = []
rc, out = run("good")
if rc != 0 or out:
    failures.append(f"good: exit {rc}, expected 0 and no output; got:\n" + "\n".join(out))
rc, listed = run("good", "--list")
if rc != 0 or len(listed) < 20:
    failures.append(f"good --list: exit {rc}, {len(listed)} citations listed (expected 0, >= 20)")

rc, out = run("bad")
with open(os.path.join(fixtures, "bad", "expected.txt"), encoding="utf-8") as fh:
    expected = [line for line in fh.read().split("\n") if line]
if rc != 1:
    failures.append(f"bad: exit {rc}, expected 1")
missing = sorted(set(expected) - set(out))
extra = sorted(set(out) - set(expected))
if missing or extra:
    failures.append("bad: output differs from expected.txt\n  missing:\n    " +
                    "\n    ".join(missing) + "\n  unexpected:\n    " + "\n    ".join(extra))

for f in failures:
    print("FAIL", f)
print("check-citations self-test:", "FAILED" if failures else "passed")
sys.exit(1 if failures else 0)
