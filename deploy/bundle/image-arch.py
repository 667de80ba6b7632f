#!/usr/bin/env python3
"""The architectures of an OCI image archive, from the configs its index leads to.

Usage: image-arch.py ARCHIVE   (prints "amd64", "amd64 arm64", ...)
"""
import json
import sys
import tarfile


def main():
    with tarfile.open(sys.argv[1]) as t:
        def blob(digest):
            return json.load(t.extractfile("./blobs/" + digest.replace(":", "/")))

        archs = set()
        for m in json.load(t.extractfile("./index.json"))["manifests"]:
            desc = blob(m["digest"])
            # An image index (several architectures) or one image's manifest.
            for d in desc.get("manifests", [desc]):
                man = blob(d["digest"]) if "manifests" in desc else d
                archs.add(blob(man["config"]["digest"])["architecture"])
    print(" ".join(sorted(archs)))


if __name__ == "__main__":
    main()
