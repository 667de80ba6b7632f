#!/usr/bin/env python3
"""The Helm chart deploy/helm/gdrcheck, rendered by helm itself: 'helm lint
--strict'; its defaults render the kustomize base's DaemonSet pod (the same pod
spec as 'kubectl kustomize deploy/base'); every value set renders objects that
validate against the Kubernetes 1.33 schemas and the CRDs (strict fields), and
each value it sets reaches the object it is for; values.schema.json knows every
value of values.yaml and refuses what gdrcheck would refuse; the chart's copies
of the alerts and the dashboard are deploy/monitoring's. Skips without helm
(tools/install-helm.sh installs it).

Usage: test-helm.py SOURCE_ROOT SCHEMA_DIR
"""
import importlib.util
import json
import os
import subprocess
import sys

import yaml

import k8slib

CHART = os.path.join("deploy", "helm", "gdrcheck")


def render(helm, chart, sets, release="gdrcheck", check=True):
    args = [helm, "template", release, chart, "--namespace", "gdrcheck"]
    for s in sets:
        args += ["--set-json" if s.startswith("json:") else "--set", s.removeprefix("json:")]
    p = subprocess.run(args, capture_output=True, text=True)
    if not check:
        return p
    if p.returncode != 0:
        raise SystemExit(f"helm template {' '.join(sets)}: {p.stderr}")
    return [d for d in yaml.safe_load_all(p.stdout) if d]


def by_kind(docs, kind):
    return [d for d in docs if d["kind"] == kind]


def pod_of(docs):
    return by_kind(docs, "DaemonSet")[0]["spec"]["template"]


def leaves(d, prefix=""):
    """Dotted paths of the leaves of a values tree (lists and empty maps are leaves)."""
    if isinstance(d, dict) and d:
        for k, v in d.items():
            yield from leaves(v, f"{prefix}{k}.")
    else:
        yield prefix[:-1]


def schema_leaves(s, prefix=""):
    props = s.get("properties")
    if props:
        for k, v in props.items():
            yield from schema_leaves(v, f"{prefix}{k}.")
    else:
        yield prefix[:-1]


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

    p = subprocess.run([helm, "lint", "--strict", chart], capture_output=True, text=True)
    if p.returncode != 0:
        errors.append(f"helm lint --strict: {p.stdout}{p.stderr}")

    base = [d for d in yaml.safe_load_all(k8slib.run([kubectl, "kustomize", os.path.join(src, "deploy", "base")],
                                                      check_rc=[0]).stdout) if d]
    defaults = render(helm, chart, [])
    want = by_kind(base, "DaemonSet")[0]["spec"]["template"]["spec"]
    got = pod_of(defaults)["spec"]
    if got != want:
        for k in sorted(set(got) | set(want)):
            if got.get(k) != want.get(k):
                errors.append(f"defaults: pod spec .{k} differs from deploy/base:\n  chart {got.get(k)}\n  base  {want.get(k)}")

    # The copies the chart carries (helm reads no file outside the chart).
    with open(os.path.join(src, "deploy", "monitoring", "prometheusrule.yaml")) as f:
        rule = yaml.safe_load(f)
    with open(os.path.join(chart, "files", "gdrcheck-rules.yaml")) as f:
        if yaml.safe_load(f) != rule["spec"]:
            errors.append("files/gdrcheck-rules.yaml is not deploy/monitoring/prometheusrule.yaml's spec")
    with open(os.path.join(src, "deploy", "monitoring", "dashboard.json")) as a, \
            open(os.path.join(chart, "files", "dashboard.json")) as b:
        if a.read() != b.read():
            errors.append("files/dashboard.json is not deploy/monitoring/dashboard.json")

    # The schema knows every value, and values.yaml holds only what it knows.
    with open(os.path.join(chart, "values.yaml")) as f:
        values = yaml.safe_load(f)
    with open(os.path.join(chart, "values.schema.json")) as f:
        vschema = json.load(f)
    known = set(schema_leaves(vschema))
    for leaf in leaves(values):
        if not any(leaf == k or leaf.startswith(k + ".") for k in known):
            errors.append(f"values.schema.json does not know {leaf}")
    for bad in (["interval=5x"], ["metrics.port=0"], ["nfd.featuresDir=relative"], ["bogus=1"],
                ["image.pullPolicy=Sometimes"], ["json:extraArgs=[\"rm -rf\"]"], ["probe.rdmaResource=rdma"],
                ["updateStrategy.type=Sometimes"]):
        if render(helm, chart, bad, check=False).returncode == 0:
            errors.append(f"values.schema.json lets {bad[0]} through")

    cases = [
        ("defaults", [], "gdrcheck"),
        ("everything on", ["namespace.create=true", "textfile.enabled=true", "metrics.podMonitor.enabled=true",
                           "probe.enabled=true", "prometheusRule.enabled=true", "dashboard.enabled=true",
                           "prometheusRule.runbookBaseURL=https://wiki.example/gdrcheck/runbooks",
                           "dashboard.namespace=monitoring", "json:imagePullSecrets=[{\"name\":\"regcred\"}]",
                           "podAnnotations.team=ml", "json:extraArgs=[\"--expiry=2h\"]",
                           "updateStrategy.type=OnDelete", "updateStrategy.rollingUpdate=null",
                           "fullnameOverride=gdr", "nameOverride=gdrc"], "gdrcheck"),
        ("chosen values", ["image.repository=registry.example/ops/gdrcheck", "image.tag=9.9.9",
                           "image.pullPolicy=Always", "priorityClassName=", "tolerations=null",
                           "nodeSelector.pool=gpu", "nfd.featuresDir=/var/lib/nfd/features.d",
                           "metrics.port=19402", "interval=1m", "nvml.enabled=false",
                           "updateStrategy.rollingUpdate.maxUnavailable=1",
                           "metrics.podMonitor.enabled=true", "metrics.podMonitor.interval=30s",
                           "metrics.podMonitor.labels.release=prom", "prometheusRule.enabled=true",
                           "prometheusRule.labels.release=prom", "dashboard.enabled=true",
                           "dashboard.labels.grafana_dashboard=gdrcheck",
                           "textfile.enabled=true", "textfile.dir=/srv/textfile",
                           "probe.enabled=true", "probe.rdmaResource=rdma/hca",
                           "resources.requests.cpu=10m", "affinity=null"], "other"),
        ("no runtime class", ["nvml.runtimeClassName="], "gdrcheck"),
    ]
    for what, sets, release in cases:
        docs = render(helm, chart, sets, release)
        for d in docs:
            vm.validate(schemas, d, f"helm template ({what})", errors)
        pod = pod_of(docs)
        c = pod["spec"]["containers"][0]
        kinds = {d["kind"] for d in docs}
        checks = []
        if what == "everything on":
            ds = by_kind(docs, "DaemonSet")[0]
            rules = json.dumps(by_kind(docs, "PrometheusRule")[0]["spec"])
            cm = by_kind(docs, "ConfigMap")[0]
            ns = by_kind(docs, "Namespace")[0]
            checks = [
                ("objects", kinds == {"Namespace", "ServiceAccount", "DaemonSet", "PodMonitor", "PrometheusRule",
                                      "ConfigMap"}),
                ("Pod Security label", ns["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") == "privileged"),
                ("--prom and --probe", any(a.startswith("--prom=") for a in c["args"]) and "--probe" in c["args"]),
                ("runbook_url", "https://wiki.example/gdrcheck/runbooks#gdrcheckgatefailed" in rules
                 and "docs/runbooks.md" not in rules),
                ("dashboard", cm["metadata"]["namespace"] == "monitoring"
                 and cm["metadata"]["labels"].get("grafana_dashboard") == "1"
                 and json.loads(cm["data"]["gdrcheck.json"])["title"]),
                ("imagePullSecrets", pod["spec"].get("imagePullSecrets") == [{"name": "regcred"}]),
                ("podAnnotations", pod["metadata"].get("annotations") == {"team": "ml"}),
                ("extraArgs", c["args"][-1] == "--expiry=2h"),
                ("updateStrategy", ds["spec"]["updateStrategy"] == {"type": "OnDelete"}),
                ("fullnameOverride", all(d["metadata"]["name"].startswith("gdr") for d in docs
                                         if d["kind"] != "Namespace")
                 and ds["metadata"]["name"] == "gdr" and pod["spec"]["serviceAccountName"] == "gdr"),
                ("selector", ds["spec"]["selector"]["matchLabels"] == {"app.kubernetes.io/name": "gdrc",
                                                                       "app.kubernetes.io/instance": "gdrcheck"}
                 and by_kind(docs, "PodMonitor")[0]["spec"]["selector"]["matchLabels"]
                 == ds["spec"]["selector"]["matchLabels"]),
            ]
        elif what == "chosen values":
            ds = by_kind(docs, "DaemonSet")[0]
            pm = by_kind(docs, "PodMonitor")[0]
            checks = [
                ("image", c["image"] == "registry.example/ops/gdrcheck:9.9.9" and c["imagePullPolicy"] == "Always"),
                ("priorityClassName", "priorityClassName" not in pod["spec"]),
                ("tolerations", "tolerations" not in pod["spec"]),
                ("affinity", "affinity" not in pod["spec"]),
                ("nodeSelector", pod["spec"].get("nodeSelector") == {"pool": "gpu"}),
                ("features.d", "--nfd=/var/lib/nfd/features.d/gdrcheck" in c["args"]),
                ("metrics port", c["ports"][0]["containerPort"] == 19402 and "--listen=$(POD_IP):19402" in c["args"]),
                ("interval", "--interval=1m" in c["args"]),
                ("nvml off", "--nvml" not in c["args"] and "runtimeClassName" not in pod["spec"]),
                ("maxUnavailable", ds["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] == 1),
                ("podMonitor", pm["spec"]["podMetricsEndpoints"][0]["interval"] == "30s"
                 and pm["metadata"]["labels"]["release"] == "prom"),
                ("prometheusRule labels", by_kind(docs, "PrometheusRule")[0]["metadata"]["labels"]["release"] == "prom"),
                ("dashboard label", by_kind(docs, "ConfigMap")[0]["metadata"]["labels"]["grafana_dashboard"] == "gdrcheck"),
                ("textfile", "--prom=/srv/textfile/gdrcheck.prom" in c["args"]),
                ("probe resource", c["resources"]["limits"].get("rdma/hca") == "1"),
                ("release name", ds["metadata"]["name"] == "other-gdrcheck"),
            ]
        elif what == "no runtime class":
            checks = [("runtimeClassName", "runtimeClassName" not in pod["spec"] and "--nvml" in c["args"])]
        else:
            checks = [("runtimeClassName nvidia", pod["spec"].get("runtimeClassName") == "nvidia"),
                      ("objects", kinds == {"ServiceAccount", "DaemonSet"})]
        errors += [f"{what}: {name} did not reach its object" for name, ok in checks if not ok]
    for e in errors:
        print(e)
    print(f"{len(cases)} value sets rendered, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
