#!/usr/bin/env python3
"""Write src/lib/k8s/k8s-images-table.c from the charts' values.yaml files.

Every image a chart's values.yaml names, for every chart release kept under
tests/data/k8s/helm/CHART/VERSION/ (byte copies of the upstream files at the
release tags, tests/data/k8s/PROVENANCE.md), becomes one row: its values key,
registry/repository/name, tag and whether the chart's defaults deploy it.
`gdrcheck k8s --images` (src/lib/k8s/k8s-images.c) decides which rows a node
pulls; this table only says what each release's values.yaml says.

  gen-k8s-images.py HELM_DIR OUT.c           write the table
  gen-k8s-images.py --check HELM_DIR OUT.c   exit 1 when OUT.c differs (the suite)

Shapes read (every one the two charts use):
  {repository, image|name, version|tag}   a component; no tag: the chart's appVersion
  KEY.image: {repository, tag}             a sub-chart's image override (Network Operator's NFD)
  images: {NAME: "registry/name:tag"}      the SR-IOV operator's list
  a sub-chart kept under charts/NAME/      its values' image.repository, tag or its appVersion
enabled/enable on a mapping, or a sub-chart's `condition`, switch what is
below; without one a component is deployed when its parent is.

The GPU Operator's Chart.yaml at a tag says `version: v1.0.0-devel`,
`appVersion: main-latest`: NVIDIA's release stamps both with the tag when it
packages the chart (the air-gapped page pulls gpu-operator:${version} for
helm --version=${version}), so the release directory's name is the version.
"""
import os
import re
import sys

try:
    import yaml
except ImportError:  # the suite's check skips where PyYAML is missing
    print("SKIP: PyYAML is not installed (tools/install-deps.sh installs python3-yaml)")
    sys.exit(77)


def image_rows(values, app_version, enabled=True, path=()):
    rows = []
    if not isinstance(values, dict):
        return rows
    here = values.get("enabled", values.get("enable", enabled))
    here = bool(here) if isinstance(here, bool) else enabled
    name = values.get("image", values.get("name"))
    if isinstance(values.get("repository"), str) and isinstance(name, str) and values["repository"]:
        tag = values.get("version", values.get("tag")) or app_version
        rows.append((".".join(path), f"{values['repository']}/{name}", str(tag), here))
    for key, sub in values.items():
        if key == "image" and isinstance(sub, dict) and sub.get("repository") and sub.get("tag"):
            ref = sub["repository"] + (f"/{sub['name']}" if sub.get("name") else "")
            rows.append((".".join(path), ref, str(sub["tag"]), here))
        elif key == "images" and isinstance(sub, dict):
            for k, ref in sub.items():
                if isinstance(ref, str) and ":" in ref.rsplit("/", 1)[-1]:
                    repo, tag = ref.rsplit(":", 1)
                    rows.append((".".join(path + (key, k)), repo, tag, here))
        elif isinstance(sub, dict):
            rows += image_rows(sub, app_version, here, path + (key,))
    return rows


def lookup(values, dotted):
    for part in dotted.split("."):
        if not isinstance(values, dict) or part not in values:
            return None
        values = values[part]
    return values


def chart_version(rel_dir, version):
    """What helm install --version takes: Chart.yaml's, or the release's (docstring)."""
    with open(os.path.join(rel_dir, "Chart.yaml")) as f:
        v = str(yaml.safe_load(f).get("version", ""))
    return v if re.match(r"^v?\d+\.\d+\.\d+$", v) else version


def release_rows(rel_dir, version):
    with open(os.path.join(rel_dir, "values.yaml")) as f:
        values = yaml.safe_load(f)
    with open(os.path.join(rel_dir, "Chart.yaml")) as f:
        chart = yaml.safe_load(f)
    app = chart.get("appVersion")
    if not re.match(r"^v?\d", str(app)):
        app = version  # the release stamps it (docstring)
    rows = []
    conditions = {d["name"]: d.get("condition") for d in chart.get("dependencies", [])}
    for key, sub in values.items():
        on = True
        if key in conditions and conditions[key]:
            on = bool(lookup(values, conditions[key]))
        rows += image_rows(sub, app, on, (key,))
        sub_dir = os.path.join(rel_dir, "charts", key)
        if os.path.isdir(sub_dir):
            with open(os.path.join(sub_dir, "values.yaml")) as f:
                sv = yaml.safe_load(f)
            with open(os.path.join(sub_dir, "Chart.yaml")) as f:
                sc = yaml.safe_load(f)
            img = sv.get("image", {})
            override = (sub or {}).get("image", {}) if isinstance(sub, dict) else {}
            if not override.get("repository"):
                rows.append((key, img["repository"], str(img.get("tag") or sc["appVersion"]), on))
    return sorted(set(rows))


def c_name(chart, version):
    return re.sub(r"[^a-z0-9]", "_", f"{chart}_{version}".lower())


def vkey(version):
    return [int(x) for x in re.findall(r"\d+", version)]


def generate(helm_dir):
    out = ["/* SPDX-License-Identifier: MIT */",
           "/*",
           " * Generated by tools/gen-k8s-images.py from the charts' values.yaml under",
           " * tests/data/k8s/helm (tests/data/k8s/PROVENANCE.md). Do not edit: the test",
           " * k8s-images-table regenerates it and fails on any difference.",
           " */",
           '#include "k8s-images.h"',
           "",
           '#include "../util/cleanup.h"',
           ""]
    releases = []
    for chart in sorted(os.listdir(helm_dir)):
        for version in sorted(os.listdir(os.path.join(helm_dir, chart)), key=vkey):
            rel_dir = os.path.join(helm_dir, chart, version)
            rows = release_rows(rel_dir, version)
            name = c_name(chart, version)
            version = chart_version(rel_dir, version)
            out.append(f"static const struct helm_image {name}[] = {{")
            for key, ref, tag, on in rows:
                out.append(f'\t{{ "{key}", "{ref}", "{tag}", {"true" if on else "false"} }},')
            out += ["};", ""]
            releases.append((chart, version, name))
    out.append("const struct helm_release helm_releases[] = {")
    for chart, version, name in releases:
        out.append(f'\t{{ "{chart}", "{version}", {name}, ARRAY_SIZE({name}) }},')
    out += ["};", "", "const size_t helm_n_releases = ARRAY_SIZE(helm_releases);", ""]
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    check = args[:1] == ["--check"]
    if check:
        args = args[1:]
    if len(args) != 2:
        raise SystemExit(__doc__)
    text = generate(args[0])
    if check:
        with open(args[1]) as f:
            if f.read() != text:
                print(f"{args[1]} is not what tools/gen-k8s-images.py writes from {args[0]}: rerun it")
                return 1
        print(f"{args[1]}: the table of {args[0]}")
        return 0
    with open(args[1], "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
