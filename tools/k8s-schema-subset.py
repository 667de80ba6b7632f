#!/usr/bin/env python3
"""Cut the Kubernetes OpenAPI v3 specs down to the kinds gdrcheck's manifests use.

Usage: tools/k8s-schema-subset.py OPENAPI_DIR OUT.json

Reads the kubernetes/kubernetes api/openapi-spec/v3 files (api__v1, apis__apps__v1,
apis__batch__v1, apis__rbac.authorization.k8s.io__v1) and writes one JSON file with
components.schemas holding every schema reachable by $ref from the kinds below,
unchanged. tests/k8s/validate-manifests.py validates against it.
"""
import json
import os
import sys

FILES = ["api__v1_openapi.json", "apis__apps__v1_openapi.json", "apis__batch__v1_openapi.json",
         "apis__rbac.authorization.k8s.io__v1_openapi.json"]
KINDS = {("", "v1", k) for k in ["Pod", "Namespace", "ServiceAccount", "ConfigMap", "Service", "Secret"]} | \
        {("apps", "v1", k) for k in ["DaemonSet", "Deployment"]} | \
        {("batch", "v1", k) for k in ["Job"]} | \
        {("rbac.authorization.k8s.io", "v1", k) for k in ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"]}


def refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith("#/components/schemas/"):
            out.add(r.rsplit("/", 1)[1])
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    schemas = {}
    for name in FILES:
        with open(os.path.join(src, name)) as f:
            schemas.update(json.load(f)["components"]["schemas"])
    todo = [n for n, s in schemas.items()
            if any((g["group"], g["version"], g["kind"]) in KINDS for g in s.get("x-kubernetes-group-version-kind", []))]
    keep = set()
    while todo:
        n = todo.pop()
        if n in keep:
            continue
        keep.add(n)
        found = set()
        refs(schemas[n], found)
        todo.extend(found - keep)
    with open(dst, "w") as f:
        json.dump({"components": {"schemas": {n: schemas[n] for n in sorted(keep)}}}, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
