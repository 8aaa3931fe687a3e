#!/usr/bin/env python3
"""Self-test of scripts/check-layering on trees written to a temporary folder: a tree that keeps
its lists must pass; each broken tree must fail with exactly the expected lines (a back arrow, an
include through a relative path and through <...>, a file outside the one allowed file of a module,
a module named in no list, a list naming a module that does not exist or naming a module and one of
its files, a source file in no module)."""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
checker = os.path.join(here, "..", "..", "scripts", "check-layering")

# Shared by every tree: three engine modules, render, protocol.
BASE = {
    "engine/core/README.md": "# core\n\nMay include: the standard library only.\n",
    "engine/core/tick.hpp": "#pragma once\n#include <cstdint>\n",
    "engine/api/README.md": "# api\n\nMay include: `engine/core` and the standard library.\n",
    "engine/api/types.hpp": '#pragma once\n#include "engine/core/tick.hpp"\n',
    "engine/sim/README.md": "# sim\n\nMay include: every module under\n`engine/`. Nothing else.\n",
    "engine/sim/engine.hpp": '#pragma once\n#include "engine/api/types.hpp"\n',
    "engine/sim/session.hpp": '#pragma once\n#include "engine.hpp"\n',
    "render/README.md": ("# render\n\nMay include: `engine/api`, `engine/core` (the `tick.hpp` type), "
                         "libdeflate.\nNever `protocol/`.\n"),
    "render/renderer.hpp": ('#pragma once\n#include "engine/api/types.hpp"\n#include "wire.hpp"\n'
                            '#include "emote_sim_build_id.hpp"\n#include <vector>\n'),
    "render/wire.hpp": "#pragma once\n",
    "render/tables/README.md": "# tables\n\nGenerated tables, part of render.\n",
    "render/tables/tables.hpp": '#pragma once\n#include "../wire.hpp"\n',
    "protocol/README.md": ("# protocol\n\nMay include: `engine/api`, `engine/sim/engine.hpp` "
                           "(types only), `render/`.\n"),
    "protocol/encode.cpp": ('#include "engine/sim/engine.hpp"\n#include "render/tables/tables.hpp"\n'
                            '#include "encode.hpp"\n'),
    "protocol/encode.hpp": '#pragma once\n#include "engine/api/types.hpp"\n',
}

# name -> (files changed from BASE (None deletes), expected output lines)
CASES = {
    "good": ({}, []),
    "back-arrow": (
        {"engine/core/vec.hpp": '#pragma once\n\n#include "engine/api/types.hpp"\n'},
        ['engine/core/vec.hpp:3: #include "engine/api/types.hpp": module engine/core may not include '
         'engine/api/types.hpp (engine/api is not in its list; engine/core/README.md:3 '
         '"May include": no other module)']),
    "relative-and-angle": (
        {"render/wire.hpp": '#pragma once\n#include "../protocol/encode.hpp"\n',
         "render/tables/tables.hpp": '#pragma once\n#include <engine/sim/engine.hpp>\n'},
        ['render/wire.hpp:2: #include "../protocol/encode.hpp": module render may not include '
         'protocol/encode.hpp (protocol is not in its list; render/README.md:3 "May include": '
         'engine/api, engine/core)',
         'render/tables/tables.hpp:2: #include <engine/sim/engine.hpp>: module render may not '
         'include engine/sim/engine.hpp (engine/sim is not in its list; render/README.md:3 '
         '"May include": engine/api, engine/core)']),
    "one-file-only": (
        {"protocol/encode.hpp": '#pragma once\n#include "engine/sim/session.hpp"\n'},
        ['protocol/encode.hpp:2: #include "engine/sim/session.hpp": module protocol may not include '
         'engine/sim/session.hpp (of engine/sim it may include only engine/sim/engine.hpp; '
         'protocol/README.md:3 "May include": engine/api, render, engine/sim/engine.hpp)']),
    "no-such-module": (
        {"engine/api/README.md": "# api\n\nMay include: `engine/core`, `engine/physics`.\n"},
        ['engine/api/README.md:3: the "May include" list of engine/api names `engine/physics`, which '
         'is not a module, a folder of modules or a file of a module (modules: engine/api, '
         'engine/core, engine/sim, protocol, render)']),
    "module-and-file": (
        {"protocol/README.md": ("# protocol\n\nMay include: `engine/api`, `engine/sim`, "
                                "`engine/sim/engine.hpp`, `render`.\n")},
        ['protocol/README.md:3: the "May include" list of protocol names engine/sim and also single '
         'files of it (engine/sim/engine.hpp): name the module or its files, not both']),
    "no-module": (
        {"gate/session.cpp": '#include "render/wire.hpp"\n'},
        ['gate/session.cpp:1: belongs to no module: no README.md with a "May include:" list in its '
         'folder or above it']),
    "no-list": (
        {"protocol/README.md": "# protocol\n\nMay use anything.\n"},
        ['protocol/encode.cpp:1: belongs to no module: no README.md with a "May include:" list in '
         'its folder or above it',
         'protocol/encode.hpp:1: belongs to no module: no README.md with a "May include:" list in '
         'its folder or above it']),
}


def write_tree(root, changes):
    files = dict(BASE)
    files.update(changes)
    for path, text in files.items():
        if text is None:
            continue
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as fh:
            fh.write(text)


failures = []
with tempfile.TemporaryDirectory(prefix="check-layering.") as tmp:
    for name, (changes, expected) in CASES.items():
        root = os.path.join(tmp, name)
        write_tree(root, changes)
        p = subprocess.run([sys.executable, checker, "--root", root], capture_output=True, text=True)
        out = [line for line in p.stdout.split("\n") if line]
        want_rc = 1 if expected else 0
        if p.returncode != want_rc:
            failures.append(f"{name}: exit {p.returncode}, expected {want_rc}\n{p.stdout}{p.stderr}")
        missing = sorted(set(expected) - set(out))
        extra = sorted(set(out) - set(expected))
        if missing or extra:
            failures.append(f"{name}: output differs\n  missing:\n    " + "\n    ".join(missing) +
                            "\n  unexpected:\n    " + "\n    ".join(extra))
    # --list on the good tree shows the graph, including the include through a relative path.
    p = subprocess.run([sys.executable, checker, "--root", os.path.join(tmp, "good"), "--list"],
                       capture_output=True, text=True)
    if p.returncode != 0 or "protocol -> engine/api (1), engine/sim (1), render (1)" not in p.stdout:
        failures.append(f"good --list: exit {p.returncode}, graph not as expected:\n{p.stdout}")

    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    p = subprocess.run([sys.executable, checker, "--root", empty], capture_output=True, text=True)
    if p.returncode != 2:
        failures.append(f"empty tree: exit {p.returncode}, expected 2")

for f in failures:
    print("FAIL", f)
print("check-layering self-test:", "FAILED" if failures else f"passed ({len(CASES)} trees)")
sys.exit(1 if failures else 0)
