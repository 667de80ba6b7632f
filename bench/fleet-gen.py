#!/usr/bin/env python3
"""Write N nodes' facts for `gdrcheck fleet`, made from two real facts files.

  fleet-gen.py GPU_NODE.json STORAGE.json N OUT [--peers P]

GPU_NODE.json and STORAGE.json are `gdrcheck collect` output of the fixture
fleet's gpu-node-01 and storage-01 (bench/fleet.sh builds them from the
specs in tests/fleet/nodes). OUT gets N compact facts documents, one file
per node (OUT/node-NNNNN.json), P of them storage peers (default 4). Every
node has its own hostname and its own addresses on three rails
(10.10.0.0/16, 10.11.0.0/16, 10.12.0.0/16); a few differ the way real
fleets do, each in one place: 1 % run the previous kernel, 0.5 % a port at
MTU 1500, 0.5 % another DSCP map, 0.2 % a NIC in 10.99.0.0/16 instead of
10.11.0.0/16.
Deterministic: the same N gives the same files.
"""
import argparse
import copy
import json
import os


def gid(ip):
    a = [int(x) for x in ip.split(".")]
    return "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % tuple(a)


def netdevs(doc):
    """The interfaces the link source listed (their link block)."""
    if doc.get("schema") != "gdrcheck.facts/3":
        raise SystemExit("fleet-gen: the base facts must be gdrcheck.facts/3, not %s" % doc.get("schema"))
    return [n for n in doc.get("netdevs", []) if isinstance(n.get("link"), dict)]


def readdress(doc, i, rails):
    """Node i's addresses: rail r's netdev gets 10.(10+r).(i>>8).(i&255)/16."""
    links = {l["name"]: l["link"] for l in netdevs(doc)}
    gids = {}
    for r, (netdev, old) in enumerate(rails):
        ip = "10.%d.%d.%d" % (10 + r, (i >> 8) & 255, i & 255)
        links[netdev]["addrs"] = [a for a in links[netdev]["addrs"] if not a.startswith(old + "/")] + \
            [ip + "/16"]
        gids[gid(old)] = gid(ip)
    # All at once: a new address may equal another rail's old one.
    for n in doc["nics"]:
        for p in n["ports"]:
            for g in p.get("gids", []):
                g["gid"] = gids.get(g["gid"], g["gid"])


def rail_addresses(doc):
    """(netdev, IPv4) of every link that holds an address other than loopback."""
    out = []
    for l in netdevs(doc):
        for a in l["link"].get("addrs") or []:
            if "." in a and not a.startswith("127."):
                out.append((l["name"], a.split("/")[0]))
    return sorted(out, key=lambda x: x[1])


def vary(doc, i):
    """The few nodes that differ, each in one place."""
    if i % 100 == 7:
        doc["host"]["kernel_release"] = "6.12.0-124.8.1.el10_1.x86_64"
    if i % 200 == 13:
        for l in netdevs(doc):
            if l["name"] == "ens6f1np1":
                l["link"]["mtu"] = 1500
    if i % 200 == 29:
        for l in doc.get("netdevs", []):
            for a in (l.get("dcb") or {}).get("apps", []) or []:
                if a["selector"] == 5 and a["protocol"] == 24:
                    a["protocol"] = 26
    if i % 500 == 41:
        for l in netdevs(doc):
            l["link"]["addrs"] = ["10.99." + a[6:] if a.startswith("10.11.") else a
                                  for a in l["link"].get("addrs") or []]
        for n in doc["nics"]:
            for p in n["ports"]:
                for g in p.get("gids", []):
                    if ":0a0b:" in g["gid"]:
                        g["gid"] = g["gid"].replace(":0a0b:", ":0a63:")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpu")
    ap.add_argument("storage")
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--peers", type=int, default=4)
    a = ap.parse_args()
    bases = [json.load(open(a.gpu)), json.load(open(a.storage))]
    rails = [rail_addresses(b) for b in bases]
    os.makedirs(a.out, exist_ok=True)
    step = max(1, a.n // max(1, a.peers))
    for i in range(a.n):
        peer = a.peers and i % step == step - 1 and i // step < a.peers
        doc = copy.deepcopy(bases[1 if peer else 0])
        doc["host"]["hostname"] = ("storage-%05d" if peer else "node-%05d") % i
        readdress(doc, i + 1, rails[1 if peer else 0])
        if not peer:
            vary(doc, i)
        with open(os.path.join(a.out, "node-%05d.json" % i), "w") as f:
            json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
