#!/usr/bin/env python3
"""The Helm chart deploy/helm/gdrcheck, rendered by helm itself: 'helm lint';
its defaults render the kustomize base's DaemonSet pod (the same pod spec as
'kubectl kustomize deploy/base'); every value set renders objects that
validate against the Kubernetes 1.33 schemas and the CRDs (strict fields);
the image, tolerations, priorityClass, nodeSelector, features.d, textfile
and metrics port values reach the pod. Skips without helm
(tools/install-helm.sh installs it).

Usage: test-helm.py SOURCE_ROOT SCHEMA_DIR
"""
import importlib.util
import os
import subprocess
import sys

import yaml

import k8slib

CHART = os.path.join("deploy", "helm", "gdrcheck")


def render(helm, chart, sets):
    args = [helm, "template", "gdrcheck", chart, "--namespace", "gdrcheck"]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"helm template {' '.join(sets)}: {p.stderr}")
    return [d for d in yaml.safe_load_all(p.stdout) if d]


def by_kind(docs, kind):
    return [d for d in docs if d["kind"] == kind]


def main():
    src, data = sys.argv[1], sys.argv[2]
    helm = k8slib.need("helm")
    kubectl = k8slib.need("kubectl")
    spec = importlib.util.spec_from_file_location("vm", os.path.join(os.path.dirname(__file__),
                                                                      "validate-manifests.py"))
    vm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(vm)
    schemas = vm.Schemas(data)
    chart = os.path.join(src, CHART)
    errors = []

    p = subprocess.run([helm, "lint", chart], capture_output=True, text=True)
    if p.returncode != 0:
        errors.append(f"helm lint: {p.stdout}{p.stderr}")

    base = [d for d in yaml.safe_load_all(k8slib.run([kubectl, "kustomize", os.path.join(src, "deploy", "base")],
                                                      check_rc=[0]).stdout) if d]
    defaults = render(helm, chart, [])
    want = by_kind(base, "DaemonSet")[0]["spec"]["template"]["spec"]
    got = by_kind(defaults, "DaemonSet")[0]["spec"]["template"]["spec"]
    if got != want:
        for k in sorted(set(got) | set(want)):
            if got.get(k) != want.get(k):
                errors.append(f"defaults: pod spec .{k} differs from deploy/base:\n  chart {got.get(k)}\n  base  {want.get(k)}")

    cases = [
        ("defaults", []),
        ("everything on", ["namespace.create=true", "textfile.enabled=true", "metrics.podMonitor.enabled=true",
                           "probe.enabled=true", "nvml.runtimeClassName=nvidia"]),
        ("chosen values", ["image.repository=registry.example/ops/gdrcheck", "image.tag=9.9.9",
                           "priorityClassName=", "tolerations=null", "nodeSelector.pool=gpu",
                           "nfd.featuresDir=/var/lib/nfd/features.d", "metrics.port=19402", "interval=1m",
                           "nvml.enabled=false"]),
    ]
    for what, sets in cases:
        docs = render(helm, chart, sets)
        for d in docs:
            vm.validate(schemas, d, f"helm template ({what})", errors)
        if what == "chosen values":
            pod = by_kind(docs, "DaemonSet")[0]["spec"]["template"]["spec"]
            c = pod["containers"][0]
            checks = [
                ("image", c["image"] == "registry.example/ops/gdrcheck:9.9.9"),
                ("priorityClassName", "priorityClassName" not in pod),
                ("tolerations", "tolerations" not in pod),
                ("nodeSelector", pod.get("nodeSelector") == {"pool": "gpu"}),
                ("features.d", "--nfd=/var/lib/nfd/features.d/gdrcheck" in c["args"]),
                ("metrics port", c["ports"][0]["containerPort"] == 19402 and "--listen=$(POD_IP):19402" in c["args"]),
                ("interval", "--interval=1m" in c["args"]),
                ("nvml off", "--nvml" not in c["args"]),
            ]
            errors += [f"chosen values: {name} did not reach the pod" for name, ok in checks if not ok]
        if what == "everything on":
            kinds = {d["kind"] for d in docs}
            for k in ("Namespace", "PodMonitor"):
                if k not in kinds:
                    errors.append(f"everything on: no {k}")
            c = by_kind(docs, "DaemonSet")[0]["spec"]["template"]["spec"]["containers"][0]
            if not any(a.startswith("--prom=") for a in c["args"]) or "--probe" not in c["args"]:
                errors.append("everything on: --prom or --probe missing")
    for e in errors:
        print(e)
    print(f"{len(cases)} value sets rendered, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
