#!/usr/bin/env python3
"""'gdrcheck k8s' on every fixture with a bond, in every mode and install
model: no bond slave is a macvlan master (macvlan on an enslaved port fails
with EBUSY), none is handed to a pod whole or split into VFs, no RDMA-LAG
device is handed out, no bond name is a shared-plugin ifName (the plugin
compares the PCI function's own netdev), and the PF with the default route
stays on the host.

Usage: test-k8s-bonds.py GDRCHECK FIXTURES
"""
import json
import os
import sys

import k8slib

MODES = ["shared", "hostdev", "sriov", "hostnetwork"]
INSTALLS = ["operator", "standalone"]


def bonds_of(facts):
    """{bond: [slaves]} from /proc/net/bonding and rtnetlink master links."""
    out = {b["name"]: [s["name"] for s in b.get("slaves", [])] for b in facts["roce"].get("bonds", [])}
    links = facts["roce"].get("links", [])
    by_index = {l.get("ifindex"): l for l in links}
    for l in links:
        m = l.get("master")
        if isinstance(m, int) and m in by_index and by_index[m].get("kind") == "bond":
            out.setdefault(by_index[m]["name"], [])
            if l["name"] not in out[by_index[m]["name"]]:
                out[by_index[m]["name"]].append(l["name"])
    return out


def configs(obj):
    """Device plugin configs in a ConfigMap or a NicClusterPolicy."""
    if obj["kind"] == "ConfigMap" and "config.json" in obj.get("data", {}):
        yield json.loads(obj["data"]["config.json"])
    if obj["kind"] == "NicClusterPolicy":
        for p in ("rdmaSharedDevicePlugin", "sriovDevicePlugin"):
            if "config" in obj["spec"].get(p, {}):
                yield json.loads(obj["spec"][p]["config"])


def errors_for(name, out, slaves, bonds, slave_bdfs, lag_bdfs, route_bdfs):
    errs = []
    for d in out["documents"]:
        o = d["object"]
        master = None
        if o["kind"] in ("MacvlanNetwork", "IPoIBNetwork"):
            master = o["spec"].get("master")
        elif o["kind"] == "NetworkAttachmentDefinition":
            master = json.loads(o["spec"]["config"]).get("master")
        if master in slaves:
            errs.append(f"{name}: {o['kind']} master {master} is a bond slave")
        if o["kind"] == "SriovNetworkNodePolicy":
            for pf in o["spec"]["nicSelector"].get("pfNames", []):
                if pf in slaves or pf in bonds:
                    errs.append(f"{name}: SriovNetworkNodePolicy pfNames has bond member {pf}")
        for conf in configs(o):
            for e in conf.get("configList", []):
                for ifn in e["selectors"].get("ifNames", []):
                    if ifn in bonds:
                        errs.append(f"{name}: shared plugin ifNames has the bond {ifn}, which it can never match")
            for e in conf.get("resourceList", []):
                for s in e["selectors"] if isinstance(e["selectors"], list) else [e["selectors"]]:
                    addrs = s.get("pciAddresses")
                    if addrs is None:
                        errs.append(f"{name}: hostdev selectors without pciAddresses select every PF, bond slaves too")
                        continue
                    for a in addrs:
                        if a in slave_bdfs or a in lag_bdfs:
                            errs.append(f"{name}: hostdev hands out {a}, a bond member or RDMA-LAG device")
                        if a in route_bdfs:
                            errs.append(f"{name}: hostdev hands out {a}, the PF with the default route")
    return errs


def main():
    gdrcheck, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2]
    errors, checked = [], 0
    for name, d, args in k8slib.fixtures(fixtures):
        facts = json.loads(k8slib.run([gdrcheck, "collect"] + args, cwd=d, check_rc=[0]).stdout)
        bonds = bonds_of(facts)
        route = facts.get("cni", {}).get("default_route_dev")
        if not bonds and not isinstance(route, str):
            continue
        slaves = {s for v in bonds.values() for s in v}
        slave_bdfs, lag_bdfs, route_bdfs = set(), set(), set()
        for n in facts["nics"]:
            fn = n.get("fn_netdevs") or []
            if any(x in slaves for x in fn):
                slave_bdfs.add(n["bdf"])
            if n["name"].startswith("mlx5_bond") or any(b in (n.get("netdevs") or []) for b in bonds):
                lag_bdfs.add(n["bdf"])
            if isinstance(route, str) and route in fn:
                route_bdfs.add(n["bdf"])
        for mode in MODES:
            for inst in INSTALLS:
                p = k8slib.run([gdrcheck, "k8s", "--json", "--mode", mode, "--install", inst] + args, cwd=d,
                               check_rc=[0, 1])
                errors += errors_for(f"{name} --mode {mode} --install {inst}", json.loads(p.stdout), slaves,
                                     bonds, slave_bdfs, lag_bdfs, route_bdfs)
                checked += 1
    for e in errors:
        print(e)
    print(f"{checked} outputs of fixtures with bonds or a default route checked, {len(errors)} errors")
    return 1 if errors or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
