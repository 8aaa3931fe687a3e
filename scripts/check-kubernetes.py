#!/usr/bin/python3
"""Checks the objects `kubectl kustomize deploy/kubernetes/base` (and `.../gate`) renders
(scripts/check-kubernetes) against docs/guide/deployment.md ("Kubernetes", and "Kubernetes: the
gate as the backend's sidecar"):

* a StatefulSet whose pod runs the backend and the emote-sim sidecar; the sidecar runs the image
  of this version (`serve`), listens on loopback only (EMOTE_SIM_LISTEN=127.0.0.1:...), reads its
  emotes read-only at EMOTE_SIM_EMOTES from the generated ConfigMap, serves metrics on 9464 (port
  and Prometheus annotations), has startup/readiness/liveness probes running `emote-sim health`,
  requests and limits for CPU and memory, the image's non-root user (the Dockerfile's uid) with a read-only root
  file system, no privilege escalation and no capabilities, and at least 5 s of grace;
* every ConfigMap and Secret the pod names is rendered (the generators' hashed names agree);
* the ConfigMap's emote files load with `emote-sim check` without an error;
* the Service exposes the players' port and the metrics port, never emote-sim's protocol port;
* the tokens come from a Secret;
* the whole configuration the sidecar gets (every EMOTE_SIM_* of its ConfigMap and Secret) is
  accepted by emote-sim (`emote-sim list` with that environment);
* with --gate (deploy/kubernetes/gate): EMOTE_SIM_GATE is LISTEN=BACKEND with BACKEND on the pod's
  loopback at the port the backend container declares and is told to use (SERVER_PORT, offline
  mode); the Service's players' port targets the gate's port (declared by the sidecar alone, not
  by the backend); a NetworkPolicy selecting the pod admits only the gate's and the metrics port;
  the sidecar's CPU request is the base layout's plus the gate's CPU measured in performance.md;
  the backend's readiness probe is a server-list ping through the gate's port (mc-monitor status
  on the pod's loopback, or a TCP probe of that port), and no liveness or startup probe of the
  backend goes through the gate;
* the resources against docs/guide/performance.md: requests cover the 1,000 x 1,000 stress run's
  share of a core and peak memory, limits are a whole core and twice that memory.
Usage: check-kubernetes.py [--gate BASE_RENDERED.yaml] RENDERED.yaml EMOTE_SIM WORKDIR. Ends with "N passed, M failed".
"""
import os
import pathlib
import re
import subprocess
import sys

import yaml

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("PASS:", what)
    else:
        failed += 1
        print("FAIL:", what)


def cpu_millis(q):
    q = str(q)
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)


def mebibytes(q):
    q = str(q)
    for unit, f in (("Gi", 1024), ("Mi", 1), ("Ki", 1 / 1024)):
        if q.endswith(unit):
            return float(q[:-2]) * f
    return float(q) / 2**20


def performance_figures():
    """docs/guide/performance.md's measurements the resources are made from: the stress test's
    1,000 instances x 1,000 recipients (average tick in ms, peak RSS in MiB) and the gate's CPU
    (the highest 'gate CPU' of the results table or of the runs with emotes, ms per second, 100
    players)."""
    text = pathlib.Path("docs/guide/performance.md").read_text()
    row = re.search(r"^\| 1,000 × 1,000 \| ([0-9.]+) ms \|.*\| ([0-9.]+) MiB \|$", text, re.M)
    gate = text[text.index("## The gate"):]
    gate_cpu = [int(m) for m in re.findall(r"^\| [A-Z] [0-9][^|]*\| ([0-9]+) \(", gate, re.M)]
    with_emotes = re.search(r"With\s+the\s+emotes\s+the\s+gate's\s+process\s+used\s+[0-9]+–([0-9]+)\s+ms/s", gate)
    return float(row.group(1)), float(row.group(2)), max(gate_cpu + [int(with_emotes.group(1))])


def main():
    args = sys.argv[1:]
    gate = args[0] == "--gate"
    base_rendered = None
    if gate:
        base_rendered, args = args[1], args[2:]
    rendered, emote_sim, work = args[0], args[1], pathlib.Path(args[2])
    docs = [d for d in yaml.safe_load_all(open(rendered)) if d]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    names = {(d["kind"], d["metadata"]["name"]) for d in docs}
    version = re.search(r"project\(emote_sim VERSION ([0-9.]+)",
                        pathlib.Path("CMakeLists.txt").read_text()).group(1)

    sts = by_kind.get("StatefulSet", [])
    check(len(sts) == 1, "one StatefulSet (the backend's pod)")
    if not sts:
        return 1
    pod = sts[0]["spec"]["template"]
    spec = pod["spec"]
    containers = {c["name"]: c for c in spec["containers"]}
    check("emote-sim" in containers and len(containers) >= 2, "the pod runs the backend and the emote-sim sidecar")
    c = containers.get("emote-sim", {})
    check(c.get("image") == f"emote-sim:{version}", f"the sidecar's image is emote-sim:{version} (got {c.get('image')})")
    check(c.get("args") == ["serve"], "the sidecar runs `serve`")

    env = {}
    for src in c.get("envFrom", []):
        ref = src.get("configMapRef") or src.get("secretRef")
        kind = "ConfigMap" if "configMapRef" in src else "Secret"
        check((kind, ref["name"]) in names, f"envFrom {kind} {ref['name']} is rendered")
        obj = next((d for d in docs if d["kind"] == kind and d["metadata"]["name"] == ref["name"]), {})
        for k, v in (obj.get("data") or {}).items():
            env[k] = (kind, v)
    for e in c.get("env", []):
        env[e["name"]] = ("env", e.get("value"))
    listen = env.get("EMOTE_SIM_LISTEN", ("", ""))[1]
    check(bool(listen) and all(a.startswith("127.0.0.1:") for a in listen.split(",")),
          f"it listens on loopback only, inside the pod (EMOTE_SIM_LISTEN={listen})")
    for token in ("EMOTE_SIM_AUTH_CONTROLLER_TOKEN", "EMOTE_SIM_AUTH_OBSERVER_TOKEN"):
        check(env.get(token, ("",))[0] == "Secret", f"{token} comes from a Secret")
    check(env.get("EMOTE_SIM_METRICS", ("", ""))[1] == "0.0.0.0:9464", "metrics on 0.0.0.0:9464")
    check(any(p.get("containerPort") == 9464 for p in c.get("ports", [])), "the metrics port 9464 is declared")
    ann = pod["metadata"].get("annotations", {})
    check(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == "9464",
          "Prometheus annotations name port 9464")

    emotes_dir = env.get("EMOTE_SIM_EMOTES", ("", ""))[1]
    mount = next((m for m in c.get("volumeMounts", []) if m["mountPath"] == emotes_dir), None)
    check(mount is not None and mount.get("readOnly") is True, f"the emote folder {emotes_dir} is mounted read-only")
    volume = next((v for v in spec.get("volumes", []) if mount and v["name"] == mount["name"]), {})
    cm_name = (volume.get("configMap") or {}).get("name")
    check(("ConfigMap", cm_name) in names, f"the emote folder is the rendered ConfigMap {cm_name}")
    cm = next((d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == cm_name), {})
    files = cm.get("data") or {}
    check(len(files) >= 1, "the emote ConfigMap holds emote files")
    folder = work / "emotes"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    r = subprocess.run([emote_sim, "check", str(folder)], capture_output=True, text=True)
    last = (r.stdout.strip().splitlines() or [""])[-1]
    check(r.returncode == 0 and f"; 0 errors" in last, f"the ConfigMap's emotes load: {last}")

    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        cmd = (c.get(probe) or {}).get("exec", {}).get("command")
        check(cmd == ["emote-sim", "health"], f"{probe} runs emote-sim health")
    res = c.get("resources", {})
    for part in ("requests", "limits"):
        check(set(res.get(part, {})) >= {"cpu", "memory"}, f"resources.{part} set cpu and memory")
    # deployment.md: the request covers performance.md's 1,000 emotes seen by 1,000 clients (the
    # tick's share of a core, the peak memory); the limits are a whole core and twice the memory.
    tick_ms, rss_mib, _ = performance_figures()
    req, lim = res.get("requests", {}), res.get("limits", {})
    need_cpu = round(tick_ms / 50 * 1000)
    check(cpu_millis(req.get("cpu", "0")) >= need_cpu and mebibytes(req.get("memory", "0")) >= rss_mib,
          f"requests cover performance.md's 1,000 x 1,000 run ({req.get('cpu')} >= {need_cpu}m, "
          f"{req.get('memory')} >= {rss_mib:g} MiB)")
    check(cpu_millis(lim.get("cpu", "0")) >= 1000 and mebibytes(lim.get("memory", "0")) >= 2 * rss_mib,
          f"limits: a whole core and twice that memory ({lim.get('cpu')}, {lim.get('memory')} >= {2 * rss_mib:g} MiB)")
    sc = c.get("securityContext", {})
    # The image's user is made by the Dockerfile (`useradd --uid N`; scripts/test-container builds it).
    uid = int(re.search(r"useradd [^\n]*--uid ([0-9]+)", pathlib.Path("Dockerfile").read_text()).group(1))
    check(sc.get("runAsNonRoot") is True and sc.get("runAsUser") == uid,
          f"runs as the image's user {uid} (Dockerfile), non-root (runAsUser {sc.get('runAsUser')})")
    check(sc.get("readOnlyRootFilesystem") is True, "read-only root file system")
    check(sc.get("allowPrivilegeEscalation") is False and sc.get("capabilities", {}).get("drop") == ["ALL"],
          "no privilege escalation, every capability dropped")
    check(spec.get("terminationGracePeriodSeconds", 30) >= 5, "at least 5 s of grace (deployment.md, Stopping)")

    svcs = by_kind.get("Service", [])
    check(len(svcs) == 1, "one Service")
    ports = {p["port"] for s in svcs for p in s["spec"]["ports"]}
    check(9464 in ports and 25565 in ports, f"the Service exposes the players' and the metrics port ({sorted(ports)})")
    check(25580 not in ports, "the Service does not expose emote-sim's protocol port")

    # The sidecar's whole configuration, as the container gets it, is one emote-sim accepts.
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("EMOTE_SIM_")}
    run_env.update({k: str(v) for k, (_, v) in env.items() if k.startswith("EMOTE_SIM_")})
    run_env["EMOTE_SIM_EMOTES"] = str(folder)
    r = subprocess.run([emote_sim, "list"], capture_output=True, text=True, env=run_env)
    check(r.returncode == 0, f"emote-sim accepts the sidecar's configuration ({r.stderr.strip()[:300] or 'list ran'})")

    if gate:
        base = [d for d in yaml.safe_load_all(open(base_rendered)) if d and d["kind"] == "StatefulSet"]
        base_c = next(x for x in base[0]["spec"]["template"]["spec"]["containers"] if x["name"] == "emote-sim")
        check_gate(by_kind, containers, env, svcs, c, base_c["resources"]["requests"]["cpu"])
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def check_gate(by_kind, containers, env, svcs, sidecar, base_cpu):
    value = str(env.get("EMOTE_SIM_GATE", ("", ""))[1])
    m = re.fullmatch(r"(?:[A-Za-z0-9_-]+=)?([0-9.]+):([0-9]+)=127\.0\.0\.1:([0-9]+)", value)
    check(m is not None, f"EMOTE_SIM_GATE is one gate LISTEN=127.0.0.1:PORT (got {value!r})")
    if not m:
        return
    gate_port, backend_port = int(m.group(2)), int(m.group(3))
    backends = [x for n, x in containers.items() if n != "emote-sim"]
    check(len(backends) == 1, "one backend container beside the sidecar")
    backend = backends[0] if backends else {}
    bports = {p.get("containerPort") for p in backend.get("ports", [])}
    benv = {e["name"]: e.get("value") for e in backend.get("env", [])}
    check(bports == {backend_port} and benv.get("SERVER_PORT") == str(backend_port),
          f"the backend listens on the gate's BACKEND port {backend_port} (declares {sorted(bports)}, "
          f"SERVER_PORT={benv.get('SERVER_PORT')})")
    check(str(benv.get("ONLINE_MODE", "")).upper() == "FALSE",
          "the backend runs in offline mode (the gate reads the connection; the proxy authenticates)")
    # deployment.md, "Kubernetes: the gate as the backend's sidecar": the pod is ready when a
    # server-list ping through the gate's port is answered (the path the proxy takes), and nothing
    # that goes through the gate may restart the backend.
    ready = backend.get("readinessProbe") or {}
    cmd = (ready.get("exec") or {}).get("command") or []
    through = (cmd[:2] == ["mc-monitor", "status"] and "--host" in cmd and "--port" in cmd
               and cmd[cmd.index("--host") + 1] in ("127.0.0.1", "localhost")
               and cmd[cmd.index("--port") + 1] == str(gate_port))
    tcp = (ready.get("tcpSocket") or {}).get("port")
    check(through or tcp == gate_port,
          f"the backend's readiness probe pings through the gate's port {gate_port} "
          f"(readinessProbe {ready or 'missing'})")
    check(not any(str(gate_port) in str(backend.get(p) or "") for p in ("livenessProbe", "startupProbe")),
          "no liveness or startup probe of the backend goes through the gate")
    players = next((p for s in svcs for p in s["spec"]["ports"] if p["port"] == 25565), {})
    target = players.get("targetPort")
    sidecar_ports = {p.get("name"): p.get("containerPort") for p in sidecar.get("ports", [])}
    check(target in sidecar_ports and sidecar_ports[target] == gate_port or target == gate_port,
          f"the Service's players' port targets the gate's port {gate_port} (targetPort {target!r})")
    check(not any(p.get("name") == target or p.get("containerPort") == gate_port for p in backend.get("ports", [])),
          "the backend declares neither the Service's target nor the gate's port")
    pods = [d for d in by_kind.get("StatefulSet", [])]
    labels = pods[0]["spec"]["template"]["metadata"].get("labels", {}) if pods else {}
    policies = [d for d in by_kind.get("NetworkPolicy", [])
                if all(labels.get(k) == v for k, v in d["spec"]["podSelector"].get("matchLabels", {}).items())]
    check(len(policies) == 1, "a NetworkPolicy selects the pod")
    if policies:
        spec = policies[0]["spec"]
        allowed = {p.get("port") for rule in spec.get("ingress", []) for p in rule.get("ports", [])}
        open_rule = any(not rule.get("ports") for rule in spec.get("ingress", []))
        check("Ingress" in spec.get("policyTypes", []) and not open_rule and allowed == {gate_port, 9464},
              f"it admits only the gate's port and metrics from outside the pod (ports {sorted(map(str, allowed))})")
    req = sidecar.get("resources", {}).get("requests", {})
    _, _, gate_cpu = performance_figures()
    check(cpu_millis(req.get("cpu", "0")) >= cpu_millis(base_cpu) + gate_cpu,
          f"the sidecar requests the base's CPU plus the gate's measured {gate_cpu} ms/s for 100 players "
          f"({req.get('cpu')} >= {base_cpu} + {gate_cpu}m)")


if __name__ == "__main__":
    sys.exit(main())
