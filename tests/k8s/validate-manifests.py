#!/usr/bin/env python3
"""Every Kubernetes object gdrcheck ships or writes, validated the way the API
server decodes it: the Kubernetes 1.33 OpenAPI schema or the CRD's schema
(python3-jsonschema), plus strict decoding's unknown-field rule, which the
schemas alone do not express. Sources: every YAML file under deploy/, every
kustomization under deploy/ built by 'kubectl kustomize', and 'gdrcheck k8s'
for every fixture and allocation mode.

Usage: validate-manifests.py GDRCHECK SOURCE_ROOT SCHEMA_DIR FIXTURES
"""
import concurrent.futures
import copy
import json
import os
import subprocess
import sys
import tempfile

import jsonschema
import yaml

import k8slib

MODES = ["shared", "hostdev", "sriov", "hostnetwork"]
INSTALLS = ["operator", "standalone"]


class StrictLoader(yaml.SafeLoader):
    """Strict decoding refuses a field given twice; PyYAML would keep the last one."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate field {key!r}",
                                                        key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def load_all(text):
    return [d for d in yaml.load_all(text, Loader=StrictLoader) if d is not None]
NOT_OBJECTS = {("kustomize.config.k8s.io/v1beta1", "Kustomization")}


class Schemas:
    def __init__(self, data_dir):
        with open(os.path.join(data_dir, "openapi-1.33-subset.json")) as f:
            self.core = json.load(f)["components"]["schemas"]
        self.by_gvk = {}
        for name, s in self.core.items():
            for g in s.get("x-kubernetes-group-version-kind", []):
                api = g["version"] if not g["group"] else f"{g['group']}/{g['version']}"
                self.by_gvk[(api, g["kind"])] = ("core", name)
        for dirpath, _, files in os.walk(os.path.join(data_dir, "crds")):
            for fn in files:
                with open(os.path.join(dirpath, fn)) as f:
                    for crd in yaml.safe_load_all(f):
                        if not crd or crd.get("kind") != "CustomResourceDefinition":
                            continue
                        for v in crd["spec"]["versions"]:
                            api = f"{crd['spec']['group']}/{v['name']}"
                            schema = copy.deepcopy(v["schema"]["openAPIV3Schema"])
                            # Every custom object has apiVersion, kind and a full ObjectMeta,
                            # whatever its CRD's schema spells out.
                            props = schema.setdefault("properties", {})
                            props["metadata"] = {
                                "$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
                            props.setdefault("apiVersion", {"type": "string"})
                            props.setdefault("kind", {"type": "string"})
                            self.by_gvk[(api, crd["spec"]["names"]["kind"])] = ("crd", schema)

    def root_for(self, doc):
        key = (doc.get("apiVersion"), doc.get("kind"))
        if key not in self.by_gvk:
            return None
        kind, s = self.by_gvk[key]
        schema = {"$ref": f"#/components/schemas/{s}"} if kind == "core" else dict(s)
        schema["components"] = {"schemas": self.core}
        return schema

    def resolve(self, s):
        """Follow $ref and single-entry allOf wrappers (OpenAPI v3 style)."""
        while True:
            if "$ref" in s:
                base = {k: v for k, v in s.items() if k != "$ref"}
                s = {**self.core[s["$ref"].rsplit("/", 1)[1]], **base}
            elif "allOf" in s and len(s["allOf"]) == 1:
                base = {k: v for k, v in s.items() if k != "allOf"}
                s = {**s["allOf"][0], **base}
            else:
                return s


def unknown_fields(schemas, inst, schema, path, errs):
    """Strict decoding: every key must be a declared property, unless a map or preserved."""
    s = schemas.resolve(schema)
    if s.get("x-kubernetes-preserve-unknown-fields"):
        return
    if isinstance(inst, dict):
        props = s.get("properties", {})
        addl = s.get("additionalProperties")
        for k, v in inst.items():
            if k in props:
                unknown_fields(schemas, v, props[k], f"{path}.{k}", errs)
            elif isinstance(addl, dict):
                unknown_fields(schemas, v, addl, f"{path}.{k}", errs)
            elif addl is not True:
                errs.append(f"{path}.{k}: unknown field")
    elif isinstance(inst, list) and isinstance(s.get("items"), dict):
        for i, v in enumerate(inst):
            unknown_fields(schemas, v, s["items"], f"{path}[{i}]", errs)


def payload_errors(doc):
    """What the schemas cannot see: JSON configs inside strings."""
    errs = []
    kind = doc.get("kind")
    if kind == "NetworkAttachmentDefinition" and "config" in doc.get("spec", {}):
        try:
            conf = json.loads(doc["spec"]["config"])
            if "cniVersion" not in conf or not ("type" in conf or "plugins" in conf):
                errs.append("spec.config: a CNI config needs cniVersion and type or plugins")
        except ValueError as e:
            errs.append(f"spec.config: not JSON: {e}")
    for key in ("ipam", "metaPlugins"):
        if isinstance(doc.get("spec"), dict) and key in doc["spec"]:
            try:
                json.loads(doc["spec"][key])
            except ValueError as e:
                errs.append(f"spec.{key}: not JSON: {e}")
    configs = []
    if kind == "ConfigMap" and "config.json" in doc.get("data", {}):
        configs.append(("data.config.json", doc["data"]["config.json"]))
    if kind == "NicClusterPolicy":
        for plugin in ("rdmaSharedDevicePlugin", "sriovDevicePlugin"):
            if "config" in doc.get("spec", {}).get(plugin, {}):
                configs.append((f"spec.{plugin}.config", doc["spec"][plugin]["config"]))
    for where, text in configs:
        try:
            conf = json.loads(text)
        except ValueError as e:
            errs.append(f"{where}: not JSON: {e}")
            continue
        # k8s-rdma-shared-dev-plugin (configList) or sriov-network-device-plugin (resourceList).
        for key, allowed, sel in [("configList", {"resourceName", "resourcePrefix", "rdmaHcaMax", "selectors", "devices"},
                                   {"vendors", "deviceIDs", "drivers", "ifNames", "linkTypes"}),
                                  ("resourceList", {"resourceName", "resourcePrefix", "deviceType", "selectors",
                                                    "excludeTopology"},
                                   {"vendors", "devices", "drivers", "pfNames", "rootDevices", "linkTypes",
                                    "isRdma", "needVhostNet", "ddpProfiles", "pciAddresses", "acpiIndexes"})]:
                for i, entry in enumerate(conf.get(key, [])):
                    for k in set(entry) - allowed:
                        errs.append(f"{where}.{key}[{i}].{k}: unknown field")
                    sels = entry.get("selectors", {})
                    for s in sels if isinstance(sels, list) else [sels]:
                        for k in set(s) - sel:
                            errs.append(f"{where}.{key}[{i}].selectors.{k}: unknown field")
                        if not any(s.get(k) for k in ("vendors", "deviceIDs", "devices", "pciAddresses")):
                            errs.append(f"{where}.{key}[{i}].selectors: selects nothing")
    return errs


def helm_errors(chart_values, values, path=""):
    """Every key gdrcheck sets exists in the chart's values.yaml, with the default's type."""
    errs = []
    for k, v in values.items():
        p = f"{path}.{k}" if path else k
        if not isinstance(chart_values, dict) or k not in chart_values:
            errs.append(f"{p}: not a key of the chart's values.yaml")
            continue
        default = chart_values[k]
        if isinstance(v, dict):
            if isinstance(default, dict) and default:
                errs += helm_errors(default, v, p)
            elif default not in (None, {}):
                errs.append(f"{p}: a map, but the chart's default is {default!r}")
        elif default is not None and type(v) is not type(default):
            errs.append(f"{p}: {v!r} is a {type(v).__name__}, the chart's default {default!r} a {type(default).__name__}")
    return errs


def label_errors(doc):
    errs = []
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    sel = spec.get("nodeSelector") or {}
    for labels in (doc.get("metadata", {}).get("labels") or {}, sel.get("matchLabels", sel)):
        for k, v in labels.items():
            errs += k8slib.label_key_errors(k) + k8slib.label_value_errors(k, str(v))
    return errs


def validate(schemas, doc, where, errors):
    if not isinstance(doc, dict):
        errors.append(f"{where}: not an object")
        return
    if (doc.get("apiVersion"), doc.get("kind")) in NOT_OBJECTS:
        return
    root = schemas.root_for(doc)
    if root is None:
        errors.append(f"{where}: no schema for {doc.get('apiVersion')} {doc.get('kind')}")
        return
    name = f"{where}: {doc['kind']}/{doc.get('metadata', {}).get('name')}"
    for e in jsonschema.Draft7Validator(root).iter_errors(doc):
        errors.append(f"{name}: {'.'.join(str(p) for p in e.absolute_path)}: {e.message[:300]}")
    errs = []
    unknown_fields(schemas, doc, root, "", errs)
    errors.extend(f"{name}: {e}" for e in errs + payload_errors(doc) + label_errors(doc))


def self_test(schemas, src):
    """The validator must refuse what the API server refuses: mutated copies of good objects."""
    with open(os.path.join(src, "deploy", "base", "daemonset.yaml")) as f:
        ds = yaml.safe_load(f)
    bad = []
    d = copy.deepcopy(ds)
    d["spec"]["template"]["spec"]["containers"][0]["securityContext"]["readOnlyRootFS"] = True
    bad.append(("misspelt field", d))
    d = copy.deepcopy(ds)
    d["spec"]["template"]["spec"]["hostNetwork"] = "yes"
    bad.append(("wrong type", d))
    d = copy.deepcopy(ds)
    del d["spec"]["template"]["spec"]["containers"][0]["name"]
    bad.append(("missing required field", d))
    d = copy.deepcopy(ds)
    d["metadata"]["labelz"] = {}
    bad.append(("unknown metadata field", d))
    bad.append(("unknown CRD field", {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkPoolConfig",
                                      "metadata": {"name": "x"}, "spec": {"rdmaMod": "exclusive"}}))
    bad.append(("bad CRD enum", {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkPoolConfig",
                                 "metadata": {"name": "x"}, "spec": {"rdmaMode": "private"}}))
    bad.append(("bad device plugin config", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},
                                             "data": {"config.json": '{"configList": [{"resourceName": "a", '
                                                                     '"selectors": {"vendor": ["15b3"]}}]}'}}))
    bad.append(("unknown kind", {"apiVersion": "v1", "kind": "Podd", "metadata": {"name": "x"}}))
    missed = []
    try:
        load_all("a: 1\nb: 2\na: 3\n")
        missed.append("self-test: the loader accepted a field given twice")
    except yaml.YAMLError:
        pass
    for what, doc in bad:
        errs = []
        validate(schemas, doc, what, errs)
        if not errs:
            missed.append(f"self-test: the validator accepted a {what}")
    return missed


def offered(docs):
    """(resources, networks) that 'gdrcheck k8s' output makes available to pods."""
    resources, networks = set(), set()
    for d in docs:
        kind, meta = d["kind"], d.get("metadata", {})
        confs = []
        if kind == "ConfigMap" and "config.json" in d.get("data", {}):
            confs.append(d["data"]["config.json"])
        if kind == "NicClusterPolicy":
            confs += [d["spec"][p]["config"] for p in ("rdmaSharedDevicePlugin", "sriovDevicePlugin")
                      if "config" in d["spec"].get(p, {})]
        for text in confs:
            conf = json.loads(text)
            for e in conf.get("configList", []):
                resources.add(f"{e.get('resourcePrefix', 'rdma')}/{e['resourceName']}")
            for e in conf.get("resourceList", []):
                resources.add(f"{e.get('resourcePrefix', 'intel.com')}/{e['resourceName']}")
        if kind == "SriovNetworkNodePolicy":
            resources.add(f"nvidia.com/{d['spec']['resourceName']}")
        if kind in ("MacvlanNetwork", "HostDeviceNetwork", "IPoIBNetwork", "NetworkAttachmentDefinition",
                    "SriovNetwork", "SriovIBNetwork"):
            networks.add(meta["name"])
    return resources, networks


def example_errors(src, fixtures, gdrcheck):
    """Each example pod asks for what 'gdrcheck k8s --mode' of its mode provides, in either install model."""
    errs = []
    name, d, args = k8slib.fixtures(fixtures, ["hgx-h100-healthy"])[0]
    for mode in MODES:
        with open(os.path.join(src, "deploy", "examples", f"pod-{mode}.yaml")) as f:
            pod = yaml.safe_load(f)
        for inst in INSTALLS:
            docs = list(yaml.safe_load_all(k8slib.run([gdrcheck, "k8s", "--mode", mode, "--install", inst] + args,
                                                      cwd=d).stdout))
            resources, networks = offered([x for x in docs if x])
            wanted = {r for c in pod["spec"]["containers"] for r in c["resources"]["limits"] if r != "nvidia.com/gpu"}
            for r in wanted - resources:
                errs.append(f"pod-{mode}.yaml requests {r}, which 'gdrcheck k8s --mode {mode} --install {inst}' "
                            "does not provide")
            net = pod["metadata"].get("annotations", {}).get("k8s.v1.cni.cncf.io/networks")
            if net and net not in networks:
                errs.append(f"pod-{mode}.yaml attaches network {net}, which 'gdrcheck k8s --mode {mode} "
                            f"--install {inst}' does not define")
    return errs


def main():
    gdrcheck, src, data, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    kubectl = k8slib.need("kubectl")
    schemas = Schemas(data)
    errors, counted = self_test(schemas, src), 0
    deploy = os.path.join(src, "deploy")

    for dirpath, _, files in sorted(os.walk(deploy)):
        # The Helm chart is templates: test-helm.py validates what helm renders.
        if os.path.relpath(dirpath, deploy).split(os.sep)[0] == "helm":
            continue
        for fn in sorted(files):
            if not fn.endswith((".yaml", ".yml")):
                continue
            path = os.path.join(dirpath, fn)
            with open(path) as f:
                try:
                    docs = load_all(f.read())
                except yaml.YAMLError as e:
                    errors.append(f"{os.path.relpath(path, src)}: {e}")
                    docs = []
                for doc in docs:
                    validate(schemas, doc, os.path.relpath(path, src), errors)
                    counted += 1
            if fn == "kustomization.yaml":
                p = k8slib.run([kubectl, "kustomize", dirpath])
                if p.returncode != 0:
                    errors.append(f"kubectl kustomize {os.path.relpath(dirpath, src)}: {p.stderr}")
                    continue
                for doc in load_all(p.stdout):
                    validate(schemas, doc, f"kubectl kustomize {os.path.relpath(dirpath, src)}", errors)
                    counted += 1

    # gdrcheck fleet --bw-jobs: the test plan's Jobs, as the fixture fleet's golden
    # holds them (tests/fleet compares what fleet writes with it).
    path = os.path.join(src, "tests", "fleet", "expected", "bw-jobs.yaml")
    with open(path) as f:
        for doc in load_all(f.read()):
            validate(schemas, doc, os.path.relpath(path, src), errors)
            counted += 1

    if k8slib.run([gdrcheck, "k8s", "--help"]).returncode == 0:
        errors += example_errors(src, fixtures, gdrcheck)
        jobs = [(name, d, args, ["--mode", m, "--install", i])
                for name, d, args in k8slib.fixtures(fixtures)
                for m in MODES for i in INSTALLS]

        def both(job):
            name, d, args, sel = job
            return (k8slib.run([gdrcheck, "k8s"] + sel + args, cwd=d),
                    k8slib.run([gdrcheck, "k8s", "--json"] + sel + args, cwd=d))

        # The runs wait on processes: a few at a time, whatever the cores.
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(both, jobs))
        for (name, d, args, sel), (p, pj) in zip(jobs, results):
                mode, inst = sel[1], sel[3]
                if p.returncode not in (0, 1):
                    errors.append(f"{name}: gdrcheck k8s {' '.join(sel)} exited {p.returncode}: {p.stderr}")
                    continue
                docs = load_all(p.stdout)
                for doc in docs:
                    validate(schemas, doc, f"{name}: k8s {' '.join(sel)}", errors)
                    counted += 1
                out = json.loads(pj.stdout)
                if out["unfit"] and (docs or p.returncode != 1):
                    errors.append(f"{name}: k8s {' '.join(sel)}: nothing fits, yet objects or exit 0")
                # libyaml's output reads back as the very objects --json prints (quoting, block scalars).
                if docs != [x["object"] for x in out["documents"]]:
                    errors.append(f"{name}: k8s {' '.join(sel)}: the YAML does not read back as the --json objects")
                for v in out["helm_values"]:
                    with open(os.path.join(data, f"{v['chart']}-values.yaml")) as f:
                        chart = yaml.safe_load(f)
                    errors += [f"{name}: k8s {' '.join(sel)}: {v['chart']} values: {e}"
                               for e in helm_errors(chart, v["values"])]
                    if mode != "sriov" or inst != "operator":
                        continue
                    text = k8slib.run([gdrcheck, "k8s", "--helm-values", v["chart"], "--mode", mode] + args,
                                      cwd=d).stdout
                    if yaml.safe_load(text) != v["values"]:
                        errors.append(f"{name}: --helm-values {v['chart']} differs from --json")
                    counted += 1
        # labels --node-feature: an NFD NodeFeature for nodes without the DaemonSet.
        with tempfile.TemporaryDirectory() as tmp:
            for name, d, args in k8slib.fixtures(fixtures,
                                                 ["hgx-h100-healthy", "seed2-b300-e810", "no-gpu"]):
                path = os.path.join(tmp, f"{name}.yaml")
                p = k8slib.run([gdrcheck, "labels", "--node-feature", path] + args, cwd=d)
                if name == "no-gpu":
                    # No hostname in the tree: no node to name, no object, exit 3.
                    if p.returncode != 3 or os.path.exists(path):
                        errors.append(f"{name}: labels --node-feature without a hostname exited {p.returncode}")
                    continue
                if p.returncode != 0:
                    errors.append(f"{name}: labels --node-feature exited {p.returncode}: {p.stderr}")
                    continue
                with open(path) as f:
                    for doc in load_all(f.read()):
                        validate(schemas, doc, f"{name}: labels --node-feature", errors)
                        counted += 1
    for e in errors:
        print(e)
    print(f"{counted} objects validated, {len(errors)} errors")
    return 1 if errors or counted == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
