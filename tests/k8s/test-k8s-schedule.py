#!/usr/bin/env python3
"""Does what 'gdrcheck k8s' prints run on the node it was fitted to?

For every fixture with an RDMA NIC, in the default mode and model and in every
mode x model, the DaemonSets the output leads to are placed against the labels
the node would carry: the kubelet's, gdrcheck's own ('gdrcheck labels'), NFD's
PCI labels as NFD computes them from the node's sysfs (its defaults, and the
Network Operator's configuration and NodeFeatureRule under the operator model),
and the Network Operator's mofed.wait label. The selectors are the upstream
manifests' (cited below), the emitted DaemonSets' own, the NicClusterPolicy's
nodeAffinity and the SR-IOV objects' selectors.

Held: the default output schedules on every fixture; an output that does not
schedule says so in a warning (exit 1). And every SriovNetworkNodePolicy asks
each PF it names for no more VFs than the PF's sriov_totalvfs allows (the
kernel refuses more: drivers/pci/iov.c sriov_numvfs_store, -ERANGE), and names
no PF without one (no SR-IOV capability).

Usage: test-k8s-schedule.py GDRCHECK FIXTURES_DIR
"""
import json
import os
import sys

import k8slib

NIC_LABEL = "feature.node.kubernetes.io/pci-15b3.present"
WAIT_LABEL = "network.nvidia.com/operator.mofed.wait"
# Mellanox/network-operator v26.4.1: manifests/state-rdma-shared-device-plugin/
# 0060_rdma-shared-dev-plugin-ds.yaml and state-sriov-device-plugin/0030-sriov-dp-daemonset.yaml.
NETOP_PLUGIN = {NIC_LABEL: "true", WAIT_LABEL: "false"}
# deployment/network-operator/values.yaml: sriovOperatorConfig.configDaemonNodeSelector.
NETOP_CONFIG_DAEMON = {"beta.kubernetes.io/os": "linux", WAIT_LABEL: "false"}
# k8snetworkplumbingwg/sriov-network-operator v1.6.0 controllers/helper.go GetDefaultNodeSelector.
SRIOV_DEFAULT_DAEMON = {"node-role.kubernetes.io/worker": "", "kubernetes.io/os": "linux"}
# node-feature-discovery v0.19.0 source/pci/pci.go newDefaultConfig.
NFD_DEFAULT = (("03", "0b40", "12"), ("class", "vendor"))
# The Network Operator's NFD (values.yaml node-feature-discovery.worker.config.sources.pci).
NFD_NETOP = (("0300", "0302"), ("vendor",))
MODES = ["shared", "hostdev", "sriov", "hostnetwork"]
INSTALLS = ["operator", "standalone"]
NEVER_RUNS = "never runs on this node"


def pci_devices(root):
    """(class "0200", vendor "8086") of every PCI function, as NFD reads sysfs."""
    base = os.path.join(root, "sys", "bus", "pci", "devices")
    out = []
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        try:
            cls = open(os.path.join(base, name, "class")).read().strip()
            vendor = open(os.path.join(base, name, "vendor")).read().strip()
        except OSError:
            continue
        out.append((cls[2:6].lower(), vendor[2:].lower()))
    return out


def nfd_labels(devices, config):
    """node-feature-discovery source/pci/pci.go GetLabels: one label per whitelisted device."""
    whitelist, fields = config
    labels = {}
    for cls, vendor in devices:
        if any(cls.startswith(w) for w in whitelist):
            attrs = {"class": cls, "vendor": vendor}
            labels["feature.node.kubernetes.io/pci-%s.present" % "_".join(attrs[f] for f in fields)] = "true"
    return labels


def node_labels(gdrcheck, d, args, install):
    """The labels the node carries under @install."""
    facts = json.loads(k8slib.run([gdrcheck, "collect"] + args, cwd=d, check_rc=[0]).stdout)
    host = facts.get("host", {}).get("hostname")
    # The kubelet: kubernetes.io/hostname (the hostname in lower case) and the OS labels.
    labels = {"kubernetes.io/os": "linux", "beta.kubernetes.io/os": "linux"}
    if isinstance(host, str):
        labels["kubernetes.io/hostname"] = host.lower()
    doc = json.loads(k8slib.run([gdrcheck, "labels", "--json"] + args, cwd=d, check_rc=[0]).stdout)
    labels.update(doc["labels"])
    devices = pci_devices(os.path.join(d, "root"))
    labels.update(nfd_labels(devices, NFD_DEFAULT))
    if install == "operator":
        labels.update(nfd_labels(devices, NFD_NETOP))
        # deployment/network-operator/templates/nodefeaturerules.yaml: nvidia-nics-rules.
        if any(v == "15b3" and c in ("0200", "0207") for c, v in devices):
            labels[NIC_LABEL] = "true"
        # controllers/nicclusterpolicy_controller.go handleWaitLabelsNoConfig: "false" on
        # nodes with the NIC label and no OFED pod; no label elsewhere.
        if labels.get(NIC_LABEL) == "true":
            labels[WAIT_LABEL] = "false"
    return labels


def expression_ok(labels, e):
    key, op, values = e["key"], e["operator"], e.get("values", [])
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    if op in ("Gt", "Lt"):
        try:
            v = int(labels[key])
        except (KeyError, ValueError):
            return False
        return v > int(values[0]) if op == "Gt" else v < int(values[0])
    raise ValueError(op)


def placed(labels, selector=None, affinity=None):
    """A nodeSelector (every pair) and a required nodeAffinity (terms ORed)."""
    if any(labels.get(k) != v for k, v in (selector or {}).items()):
        return False
    req = ((affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    if req:
        return any(all(expression_ok(labels, e) for e in t.get("matchExpressions", []))
                   for t in req["nodeSelectorTerms"])
    return True


def components(docs, install):
    """(what, nodeSelector, affinity) of every DaemonSet or node selection the output leads to."""
    out = []
    config_daemon = None
    for doc in docs:
        o = doc["object"]
        kind, spec = o["kind"], o.get("spec", {})
        if kind == "DaemonSet":
            pod = spec["template"]["spec"]
            out.append(("DaemonSet " + o["metadata"]["name"], pod.get("nodeSelector"), pod.get("affinity")))
        elif kind == "NicClusterPolicy":
            aff = {"nodeAffinity": spec["nodeAffinity"]} if spec.get("nodeAffinity") else None
            for key in ("rdmaSharedDevicePlugin", "sriovDevicePlugin"):
                if key in spec:
                    out.append(("NicClusterPolicy " + key, NETOP_PLUGIN, aff))
            for key in ("secondaryNetwork", "nvIpam"):
                if key in spec:
                    out.append(("NicClusterPolicy " + key, None, aff))
        elif kind == "SriovNetworkNodePolicy":
            out.append(("SriovNetworkNodePolicy " + o["metadata"]["name"], spec.get("nodeSelector"), None))
            config_daemon = config_daemon or (NETOP_CONFIG_DAEMON if install == "operator" else SRIOV_DEFAULT_DAEMON)
        elif kind == "SriovNetworkPoolConfig":
            out.append(("SriovNetworkPoolConfig", spec["nodeSelector"].get("matchLabels"), None))
        elif kind == "SriovOperatorConfig":
            config_daemon = spec.get("configDaemonNodeSelector") or SRIOV_DEFAULT_DAEMON
    if config_daemon is not None:
        # The SR-IOV device plugin selects the daemon's nodes and a label the operator sets there.
        out.append(("SR-IOV config daemon", config_daemon, None))
    return out


def vf_errors(root, plan):
    """numVfs of each policy against sysfs' sriov_totalvfs of each PF it names."""
    errs = []
    for doc in plan["documents"]:
        o = doc["object"]
        if o["kind"] != "SriovNetworkNodePolicy":
            continue
        want = o["spec"]["numVfs"]
        for pf in o["spec"]["nicSelector"].get("pfNames", []):
            try:
                total = int(open(os.path.join(root, "sys", "class", "net", pf, "device", "sriov_totalvfs")).read())
            except OSError:
                errs.append(f"{o['metadata']['name']}: {pf} has no sriov_totalvfs (no SR-IOV), yet it is a pfName")
                continue
            if want > total:
                errs.append(f"{o['metadata']['name']}: numVfs {want} > {pf}'s sriov_totalvfs {total}")
    return errs


def main():
    gdrcheck, fixtures_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
    errors, runs, defaults = [], 0, 0
    labels_of = {}
    for name, d, args in k8slib.fixtures(fixtures_dir):
        cases = [None] + [(m, i) for m in MODES for i in INSTALLS]
        for case in cases:
            extra = [] if case is None else ["--mode", case[0], "--install", case[1]]
            p = k8slib.run([gdrcheck, "k8s", "--json"] + extra + args, cwd=d, check_rc=[0, 1])
            plan = json.loads(p.stdout)
            if not plan["documents"]:
                continue
            runs += 1
            where = f"{name} {' '.join(extra) or '(default)'} ({plan['mode']}, {plan['install']})"
            errors += [f"{where}: {e}" for e in vf_errors(os.path.join(d, "root"), plan)]
            key = (name, plan["install"])
            if key not in labels_of:
                labels_of[key] = node_labels(gdrcheck, d, args, plan["install"])
            labels = labels_of[key]
            stuck = [what for what, sel, aff in components(plan["documents"], plan["install"])
                     if not placed(labels, sel, aff)]
            said = [w for w in plan["warnings"] if NEVER_RUNS in w]
            if case is None:
                defaults += 1
                if stuck:
                    errors.append(f"{where}: the default output does not schedule: {', '.join(stuck)}")
            if stuck and not said:
                errors.append(f"{where}: {', '.join(stuck)} never run on the node, and no warning says so")
            if stuck and p.returncode != 1:
                errors.append(f"{where}: exit {p.returncode} for an output that does not schedule")
            if said and not stuck:
                errors.append(f"{where}: warns '{said[0]}', but everything schedules")
    for e in errors:
        print(e)
    print(f"{runs} outputs placed ({defaults} defaults), {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
