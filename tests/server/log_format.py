#!/usr/bin/env python3
"""`emote-sim serve --log-format json` (docs/guide/deployment.md, "Configuration"): every line the
server logs on stderr, from the start to a graceful stop, is one JSON object with exactly the
documented fields: "time" (UTC, ISO 8601 with milliseconds and Z), "level" (one of trace, debug,
info, warning, error, critical) and "message"; the text format is not JSON; an unknown format is a
usage error (exit status 2). The server listens on an ephemeral loopback port.
Usage: log_format.py EMOTE_SIM CONFIG_DIR. Ends with "N passed, M failed".
"""
import json
import re
import signal
import subprocess
import sys
import time

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def serve(emote_sim, emotes, fmt):
    p = subprocess.Popen([emote_sim, "serve", "--emotes", emotes, "--listen", "127.0.0.1:0",
                          "--log-format", fmt, "--log-level", "debug"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = p.stderr.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if "ready" in line:  # the signal handlers are in place from here on
            break
    p.send_signal(signal.SIGTERM)
    _, rest = p.communicate(timeout=20)
    lines += [l for l in rest.splitlines() if l]
    return p.returncode, lines


emote_sim, emotes = sys.argv[1], sys.argv[2]
code, lines = serve(emote_sim, emotes, "json")
check(code == 0, f"serve --log-format json stops gracefully (exit {code})")
check(any("listening on 127.0.0.1:" in l for l in lines), "it logged where it listens")
for l in lines:
    try:
        o = json.loads(l)
    except ValueError:
        check(False, f"not a JSON object: {l!r}")
        continue
    check(isinstance(o, dict) and list(o) == ["time", "level", "message"], f"fields time, level, message: {l!r}")
    check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", o.get("time", "")) is not None, f"UTC time: {o.get('time')}")
    check(o.get("level") in {"trace", "debug", "info", "warning", "error", "critical"}, f"level: {o.get('level')}")
check(len(lines) >= 2, f"at least the start and the stop are logged ({len(lines)} lines)")
code, text_lines = serve(emote_sim, emotes, "text")
check(code == 0 and text_lines and not text_lines[0].startswith("{"), "the text format is not JSON")
bad = subprocess.run([emote_sim, "serve", "--log-format", "xml"], capture_output=True, text=True)
check(bad.returncode == 2 and "unknown log format 'xml'" in bad.stderr, f"an unknown format is a usage error: {bad.stderr.strip()}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
