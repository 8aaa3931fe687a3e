#!/usr/bin/env python3
"""`emote-sim check --format json|sarif` (docs/guide/emote-files.md, "Checking files"), run on the
fixtures of tests/data/content/check and tests/data/content/suggest as one content set:

* text, json and sarif report the same findings (every finding of every file, every error of a
  file, same order);
* json: one object per finding with file, line, column, severity, path, message, code and, for
  the misspellings, suggestion "did you mean `...`?"; then the summary; --json is the same;
* sarif: a SARIF 2.1.0 log: one run, the tool's rules (one per code, each used), one result per
  finding with ruleId, level, message, the file as a URI that exists, startLine/startColumn and
  the JSON path as a logical location;
* the exit status: 1 with errors, 0 without (a clean folder), 1 with --strict and only warnings,
  2 for an unknown format.
Usage: check_formats.py EMOTE_SIM DATA_DIR. Ends with "N passed, M failed".
"""
import json
import pathlib
import subprocess
import sys
import urllib.parse

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(*args):
    return subprocess.run([EMOTE_SIM, "check", *args], capture_output=True, text=True)


EMOTE_SIM, DATA = sys.argv[1], pathlib.Path(sys.argv[2])
roots = [str(DATA / "content/check"), str(DATA / "content/suggest")]

text = run(*roots)
js = run(*roots, "--format", "json")
legacy = run(*roots, "--json")
sarif = run(*roots, "--format", "sarif")
check(text.returncode == js.returncode == sarif.returncode == 1, f"exit status 1 with errors ({text.returncode}, {js.returncode}, {sarif.returncode})")
check(js.stdout == legacy.stdout, "--json is --format json")

lines = [json.loads(l) for l in js.stdout.splitlines()]
findings = [l for l in lines if "severity" in l]
summary = lines[-1].get("summary", {})
text_lines = [l for l in text.stdout.splitlines() if ": error: " in l or ": warning: " in l]
check(len(findings) == len(text_lines) == summary.get("errors", -1) + summary.get("warnings", -1),
      f"json and text list every finding ({len(findings)}, {len(text_lines)}, summary {summary})")
for f, t in zip(findings, text_lines):
    check(t == f"{f['file']}:{f['line']}:{f['column']}: {f['severity']}: {f['path']}: {f['message']}",
          f"json finding matches the text line {t!r}")
    check(set(f) >= {"file", "line", "column", "severity", "path", "message", "code"} and f["code"]
          and all(ch.isalnum() or ch == "-" for ch in f["code"]), f"json finding has every field: {f}")
want = {
    "$.settings.standalone": "did you mean `standalone` (not `stanalone`)?",
    "$.settings.playback.mode": "did you mean `loop`?",
    "$.settings.playback.loop_dealy": "did you mean `loop_delay`?",
}
for path, suggestion in want.items():
    hit = [f for f in findings if f["path"] == path and "suggest/" in f["file"]]
    check(len(hit) == 1 and hit[0].get("suggestion") == suggestion,
          f"{path}: suggestion {suggestion!r}, got {[h.get('suggestion') for h in hit]}")
check(any(f["code"] == "unknown-key-ignored" for f in findings), "code unknown-key-ignored")
# A file with four independent mistakes: every one, in check order, each with its suggestion
# (formats.md §1.3); text and sarif list them too (the comparisons above and below).
several = [(f["path"], f["code"], f.get("suggestion")) for f in findings
           if f["file"].endswith("several_errors.json")]
check(several == [
    ("$.id", "must-be-a-valid-lowercase-minecraft-identifier", None),
    ("$.settings.player.stop_conditions.jump", "must-be-a-boolean", None),
    ("$.nodes.root.space", "unsupported-node-space", "did you mean `initiator`?"),
    ("$.timeline.tracks.hat.position[0].interpolation", "unsupported-interpolation",
     "did you mean `linear`?"),
], f"several_errors.json: every error in order, got {several}")

log = json.loads(sarif.stdout)
check(log.get("version") == "2.1.0" and len(log.get("runs", [])) == 1, "SARIF 2.1.0, one run")
runobj = log["runs"][0]
driver = runobj["tool"]["driver"]
rules = [r["id"] for r in driver["rules"]]
results = runobj["results"]
check(driver["name"] == "emote-sim" and driver.get("version"), "the tool is emote-sim with its version")
check(len(rules) == len(set(rules)) and set(rules) == {r["ruleId"] for r in results},
      "one rule per code, each used")
check(len(results) == len(findings), f"one result per finding ({len(results)} vs {len(findings)})")
for r, f in zip(results, findings):
    loc = r["locations"][0]
    phys = loc["physicalLocation"]
    path = urllib.parse.unquote(phys["artifactLocation"]["uri"].removeprefix("file://"))
    check(rules[r["ruleIndex"]] == r["ruleId"] == f["code"], f"ruleId/ruleIndex/code agree for {f['path']}")
    check(r["level"] == f["severity"], "level is the severity")
    check(pathlib.Path(path).is_file(), f"the artifact URI names the file: {path}")
    check(phys.get("region") == {"startLine": f["line"], "startColumn": f["column"]}, f"region of {f['path']}")
    check(loc["logicalLocations"][0]["fullyQualifiedName"] == f["path"] == r["properties"]["jsonPath"],
          "the JSON path is the logical location")
    check(r["message"]["text"].startswith(f["path"] + ": " + f["message"]), "the message")
    check(r["properties"].get("suggestion") == f.get("suggestion"), "the suggestion")

clean = run(str(DATA / "content/check/good.json"))
check(clean.returncode == 0, f"exit status 0 without errors (got {clean.returncode})")
strict = run(str(DATA / "content/check/good.json"), "--strict", "--format", "sarif")
check(strict.returncode == 1 and json.loads(strict.stdout)["runs"][0]["results"],
      "--strict: warnings fail (exit status 1)")
bad = run(roots[0], "--format", "xml")
check(bad.returncode == 2 and "--format" in bad.stderr, "an unknown format is a usage error (2)")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
