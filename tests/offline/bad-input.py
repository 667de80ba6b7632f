#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Malformed, truncated, huge and hostile inputs for --nccl-xml, --hwloc-xml
and --facts: each must end with exit 3 and exactly one stderr line that names
the file (and the line, where the parser knows it); never a crash or a hang.

usage: bad-input.py GDRCHECK
"""
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []

NCCL_OK = """<system version="1">
  <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:15:00.0" class="0x060400" vendor="0x1000" device="0xc030" subsystem_vendor="0x1000" subsystem_device="0x100b" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:18:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" rank="0" gdr="1"/>
      </pci>
      <pci busid="0000:1a:00.0" class="0x020700" vendor="0x15b3" device="0x1021" subsystem_vendor="0x15b3" subsystem_device="0x0041" link_speed="32.0 GT/s PCIe" link_width="16">
        <nic>
          <net name="mlx5_0" dev="0" speed="400000" port="1" latency="0" guid="0x1" maxconn="131072" gdr="1"/>
        </nic>
      </pci>
    </pci>
  </cpu>
</system>
"""

HWLOC_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" allowed_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">
    <object type="Package" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2">
      <object type="NUMANode" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3" local_memory="1000000"/>
      <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="4"/>
      <object type="PU" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="5"/>
"""
HWLOC_TAIL = """    </object>
  </object>
</topology>
"""
HWLOC_PCI = """      <object type="Bridge" gp_index="7" bridge_type="0-1" depth="0" bridge_pci="0000:[00-05]">
        <object type="Bridge" gp_index="8" bridge_type="1-1" depth="1" bridge_pci="0000:[01-05]" pci_busid="0000:00:01.0" pci_type="0604 [8086:3c08] [0000:0000] 07 00" pci_link_speed="0.000000">
          <object type="PCIDev" gp_index="9" pci_busid="0000:01:00.0" pci_type="0302 [10de:2330] [10de:16c1] a1 00" pci_link_speed="0.000000"/>
          <object type="PCIDev" gp_index="10" pci_busid="%s" pci_type="0207 [15b3:1021] [15b3:0041] 00 00" pci_link_speed="0.000000">
            <object type="OSDev" gp_index="11" name="mlx5_0" osdev_type="3"/>
          </object>
        </object>
      </object>
"""

LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE system [
 <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
]>
<%s><cpu numaid="&f;"/></%s>
"""

XXE = """<?xml version="1.0"?>
<!DOCTYPE system [ <!ENTITY x SYSTEM "file:///etc/passwd"> ]>
<%s><cpu numaid="0">&x;</cpu></%s>
"""


def facts_doc(**over):
    d = {"schema": "gdrcheck.facts/1", "pci_tree": "sysfs",
         "pci": [{"bdf": "0000:18:00.0", "parent": "", "host": "pci0000:15",
                  "class": 0x030200, "vendor": 0x10de, "device": 0x2330}],
         "gpus": [{"bdf": "0000:18:00.0", "name": "NVIDIA H100 80GB HBM3",
                   "arch": "Hopper", "cc": 90}],
         "nics": [{"name": "mlx5_0", "bdf": "", "netdevs": []}]}
    d.update(over)
    return json.dumps(d, indent=1)


def case(gdrcheck, tmp, name, kind, content, pattern, line=None, ok=False):
    path = os.path.join(tmp, name)
    if isinstance(content, bytes):
        open(path, "wb").write(content)
    elif content is not None:
        open(path, "w").write(content)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NCCL_")}
    try:
        p = subprocess.run([gdrcheck, "topo", "--json", "--" + kind, path],
                           capture_output=True, text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        failures.append("%s: hung" % name)
        return
    lines = p.stderr.splitlines()
    if ok:
        if p.returncode != 0:
            failures.append("%s: exit %d (%s), expected 0" % (name, p.returncode, p.stderr))
        else:
            print("ok   %-28s accepted" % name)
        return
    why = None
    if p.returncode != 3:
        why = "exit %d, expected 3" % p.returncode
    elif len(lines) != 1:
        why = "%d stderr lines, expected 1" % len(lines)
    elif path not in lines[0]:
        why = "message does not name the file"
    elif line is not None and ("%s:%d:" % (path, line)) not in lines[0]:
        why = "message does not give line %d" % line
    elif not re.search(pattern, lines[0]):
        why = "message does not match %r" % pattern
    elif p.stdout:
        why = "wrote to stdout"
    if why:
        failures.append("%s: %s: %r" % (name, why, p.stderr))
    else:
        print("ok   %-28s %s" % (name, lines[0].replace(tmp + "/", "")))


def main():
    gdrcheck = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        c = lambda *a, **k: case(gdrcheck, tmp, *a, **k)
        # --nccl-xml
        c("nccl-good.xml", "nccl-xml", NCCL_OK, "", ok=True)
        c("nccl-malformed.xml", "nccl-xml", NCCL_OK.replace("</nic>", "</nix>"),
          "mismatch|not well|end tag", line=10)
        c("nccl-truncated.xml", "nccl-xml", NCCL_OK[:700], "")
        c("nccl-empty.xml", "nccl-xml", "", "empty")
        c("nccl-garbage.xml", "nccl-xml", bytes(range(256)) * 4, "")
        c("nccl-huge.xml", "nccl-xml", None, "larger than 16 MiB")
        c("nccl-laughs.xml", "nccl-xml", LAUGHS % ("system", "system"),
          "entity declarations are not allowed", line=3)
        c("nccl-xxe.xml", "nccl-xml", XXE % ("system", "system"),
          "entity declarations are not allowed", line=2)
        c("nccl-deep.xml", "nccl-xml",
          "<system><cpu numaid=\"0\">" + "<pci>" * 5000 + "</pci>" * 5000 + "</cpu></system>",
          "depth|deep")
        deep = "<system><cpu numaid=\"0\">\n"
        for i in range(40):
            deep += '<pci busid="0000:%02x:00.0" class="0x060400">\n' % (i + 1)
        deep += "</pci>" * 40 + "</cpu></system>\n"
        c("nccl-nested-pci.xml", "nccl-xml", deep, "nested more than 32 deep", line=34)
        c("nccl-dup-busid.xml", "nccl-xml",
          NCCL_OK.replace("0000:1a:00.0", "0000:18:00.0"), "duplicate bus id 0000:18:00.0", line=7)
        c("nccl-nic-no-parent.xml", "nccl-xml",
          '<system version="1">\n<nic><net name="mlx5_0" gdr="1"/></nic>\n</system>\n',
          "NIC with no PCI parent", line=2)
        c("nccl-gpu-twice.xml", "nccl-xml",
          NCCL_OK.replace('<gpu dev="0" sm="90" rank="0" gdr="1"/>',
                          '<gpu dev="0" sm="90" rank="0" gdr="1"/>\n<gpu dev="1" sm="90" rank="1" gdr="1"/>'),
          "GPU 0000:18:00.0 listed twice", line=6)
        c("nccl-nic-twice.xml", "nccl-xml",
          NCCL_OK.replace('</nic>', '<net name="mlx5_0" dev="1" gdr="1"/></nic>'),
          "NIC 'mlx5_0' listed twice", line=10)
        c("nccl-gpu-no-pci.xml", "nccl-xml",
          '<system>\n<cpu numaid="0">\n<gpu dev="0"/>\n</cpu>\n</system>\n',
          "GPU with no PCI parent", line=3)
        c("nccl-bad-busid.xml", "nccl-xml", NCCL_OK.replace("0000:18:00.0", "zz"),
          "without a valid busid", line=4)
        c("nccl-bad-type.xml", "nccl-xml", NCCL_OK.replace('vendor="0x10de"', 'vendor="nvidia"'),
          "not a number", line=4)
        c("nccl-bad-gdr.xml", "nccl-xml", NCCL_OK.replace('gdr="1"/>\n      </pci>', 'gdr="7"/>\n      </pci>'),
          "must be 0 or 1", line=5)
        c("nccl-no-numaid.xml", "nccl-xml", NCCL_OK.replace('numaid="0" ', ""),
          "without numaid", line=2)
        many = ['<system><cpu numaid="0">']
        for i in range(65):
            many.append('<pci busid="0000:%02x:00.0" class="0x030200"/>' % (i + 1))
        for i in range(64):
            many.append('<pci busid="0001:%02x:00.0" class="0x020700"/>' % (i + 1))
        c("nccl-too-many-pairs.xml", "nccl-xml", "\n".join(many + ["</cpu></system>"]),
          "65 GPUs x 64 NICs is more than the 4096 pairs")
        c("nccl-wrong-root.xml", "nccl-xml", HWLOC_HEAD + HWLOC_TAIL, "not NCCL's <system>")
        c("nccl-missing.xml", "nccl-xml", None, "cannot read")
        # --hwloc-xml
        c("hwloc-good.xml", "hwloc-xml", HWLOC_HEAD + HWLOC_PCI % "0000:01:00.1" + HWLOC_TAIL, "", ok=True)
        c("hwloc-malformed.xml", "hwloc-xml",
          (HWLOC_HEAD + HWLOC_PCI % "0000:01:00.1" + HWLOC_TAIL).replace("</topology>", "</topolog>"),
          "", line=19)
        c("hwloc-truncated.xml", "hwloc-xml", (HWLOC_HEAD + HWLOC_PCI % "0000:01:00.1")[:1500], "")
        c("hwloc-huge.xml", "hwloc-xml", None, "larger than 16 MiB")
        c("hwloc-laughs.xml", "hwloc-xml", LAUGHS % ("topology", "topology"),
          "entity declarations are not allowed", line=3)
        c("hwloc-xxe.xml", "hwloc-xml", XXE % ("topology", "topology"),
          "entity declarations are not allowed", line=2)
        c("hwloc-deep.xml", "hwloc-xml",
          '<topology version="2.0">' + '<object type="Group">' * 5000 + "</object>" * 5000 + "</topology>",
          "depth|deep")
        c("hwloc-dup-busid.xml", "hwloc-xml", HWLOC_HEAD + HWLOC_PCI % "0000:01:00.0" + HWLOC_TAIL,
          "duplicate bus id 0000:01:00.0")
        c("hwloc-nic-no-parent.xml", "hwloc-xml",
          HWLOC_HEAD + '      <object type="OSDev" gp_index="20" name="mlx5_9" osdev_type="3"/>\n' + HWLOC_TAIL,
          "NIC 'mlx5_9' has no PCI parent")
        c("hwloc-not-hwloc.xml", "hwloc-xml", NCCL_OK, "not hwloc's <topology>", line=1)
        c("hwloc-rejected.xml", "hwloc-xml",
          '<topology version="2.0"><object type="Banana" cpuset="0x1" complete_cpuset="0x1"/></topology>',
          "libhwloc cannot load")
        # what libhwloc assumes and does not check: refused before it runs
        c("hwloc-no-complete-cpuset.xml", "hwloc-xml",
          '<topology version="2.0"><object type="Machine" cpuset="0x1"/></topology>',
          '<object type="Machine"> without complete_cpuset', line=1)
        # --facts
        c("facts-good.json", "facts", facts_doc(), "", ok=True)
        c("facts-unknown-field.json", "facts",
          facts_doc(future={"x": 1}, gpus=[{"bdf": "0000:18:00.0", "new_thing": 1}]), "", ok=True)
        c("facts-malformed.json", "facts", facts_doc().replace('"pci_tree"', 'pci_tree'),
          "invalid JSON", line=3)
        c("facts-truncated.json", "facts", facts_doc()[:200], "truncated JSON")
        c("facts-empty.json", "facts", "", "empty")
        c("facts-garbage.json", "facts", bytes(range(256)) * 4, "")
        c("facts-huge.json", "facts", None, "larger than 16 MiB")
        c("facts-deep.json", "facts", "[" * 100000 + "]" * 100000, "invalid JSON")
        c("facts-trailing.json", "facts", facts_doc() + "\n{}", "data after the document")
        c("facts-not-object.json", "facts", "[1, 2]", "not a JSON object")
        c("facts-no-schema.json", "facts", "{}", "not a gdrcheck facts file")
        c("facts-other-schema.json", "facts", facts_doc(schema="gdrcheck.report/1"), "is not gdrcheck.facts")
        c("facts-newer-major.json", "facts", facts_doc(schema="gdrcheck.facts/4"), "version 4")
        c("facts-wrong-type.json", "facts",
          facts_doc(pci=[{"bdf": "0000:18:00.0", "vendor": "nvidia"}]), r"pci\[0\]\.vendor")
        c("facts-wrong-array.json", "facts", facts_doc(gpus={"bdf": 1}), "gpus: expected an array")
        c("facts-bad-bdf.json", "facts", facts_doc(pci=[{"bdf": "../../etc"}]), "not a PCI address")
        c("facts-dup-busid.json", "facts",
          facts_doc(pci=[{"bdf": "0000:18:00.0"}, {"bdf": "0000:18:00.0"}]), "duplicate bus id 0000:18:00.0")
        c("facts-gpu-twice.json", "facts",
          facts_doc(gpus=[{"bdf": "0000:18:00.0"}, {"bdf": "0000:18:00.0"}]), "GPU 0000:18:00.0 listed twice")
        c("facts-nic-twice.json", "facts",
          facts_doc(nics=[{"name": "mlx5_0", "bdf": "0000:18:00.0"}, {"name": "mlx5_0"}]), "NIC 'mlx5_0' listed twice")
        c("facts-bad-state.json", "facts",
          facts_doc(pci=[{"bdf": "0000:18:00.0", "vendor": {"state": "sideways"}}]), r"pci\[0\]\.vendor")
        c("facts-missing.json", "facts", None, "cannot read")
        # A directory is not a file.
        case(gdrcheck, tmp, "", "facts", None, "Is a directory")
        # The 17 MiB files above are sparse: no disk is spent.
    if failures:
        print("\n".join("FAIL " + f for f in failures))
        sys.exit(1)


# The huge inputs: created sparse before the run, one per kind.
_orig_case = case


def case(gdrcheck, tmp, name, kind, content, pattern, line=None, ok=False):  # noqa: F811
    if "huge" in name:
        with open(os.path.join(tmp, name), "wb") as f:
            f.truncate(17 << 20)
    return _orig_case(gdrcheck, tmp, name, kind, content, pattern, line, ok)


main()
