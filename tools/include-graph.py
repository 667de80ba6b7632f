#!/usr/bin/env python3
"""The include graph of src/: edges, cycles, and the folders' floors.

Every `#include "..."` of a file under src/ is one edge to the file it names
(resolved from the including file's directory, as the compiler does). A
folder is a directory under src/lib/ (util, model, nl, ...) or src/tool.
Prints:

  files, include edges, cross-folder edges (one per file pair whose folders
  differ), the folder graph (edges with their weight), each folder's floor
  (0 for a folder that includes no other; otherwise one more than the highest
  floor it includes) and every cycle between files and between folders.

Exit status 1 when a cycle is found (between files, or between folders).
--json prints the numbers as one JSON object, for before/after comparisons.

  tools/include-graph.py [--json] [SRC_DIR]
"""
import json
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(src, path):
    rel = os.path.relpath(path, src).split(os.sep)
    if rel[0] == "lib" and len(rel) > 2:
        return rel[1]
    return rel[0] if len(rel) > 1 else "."


def read_graph(src):
    files = []
    for d, _, names in os.walk(src):
        files += [os.path.join(d, n) for n in sorted(names)
                  if n.endswith((".c", ".h"))]
    graph = {}
    for f in sorted(files):
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        deps = set()
        for inc in INCLUDE.findall(text):
            p = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if os.path.exists(p):
                deps.add(p)
        graph[f] = deps
    return graph


def sccs(graph):
    """Tarjan's strongly connected components with more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1 or node in graph.get(node, ()):
                        out.append(sorted(comp))
                continue
            if nxt not in index:
                index[nxt] = low[nxt] = counter[0]
                counter[0] += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(sorted(graph.get(nxt, ())))))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def floors(fgraph):
    memo = {}

    def floor(v, seen):
        if v in memo:
            return memo[v]
        if v in seen:
            return 0  # a cycle: reported apart
        seen.add(v)
        deps = [d for d in fgraph.get(v, ()) if d != v]
        memo[v] = 1 + max((floor(d, seen) for d in deps), default=-1)
        seen.discard(v)
        return memo[v]

    return {v: floor(v, set()) for v in sorted(fgraph)}


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    as_json = "--json" in sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.abspath(args[0] if args else os.path.join(here, "..", "src"))
    graph = read_graph(src)
    edges = sum(len(v) for v in graph.values())
    fedges = {}
    cross = 0
    for f, deps in graph.items():
        a = folder_of(src, f)
        fedges.setdefault(a, {})
        for d in deps:
            b = folder_of(src, d)
            if a != b:
                cross += 1
                fedges[a][b] = fedges[a].get(b, 0) + 1
    file_cycles = [[os.path.relpath(p, src) for p in c] for c in sccs(graph)]
    mgraph = {}
    for f, deps in graph.items():
        m = os.path.splitext(os.path.relpath(f, src))[0]
        mgraph.setdefault(m, set()).update(
            os.path.splitext(os.path.relpath(d, src))[0] for d in deps)
    for m in mgraph:
        mgraph[m].discard(m)
    module_cycles = sccs(mgraph)
    folder_cycles = sccs({a: set(b) for a, b in fedges.items()})
    fl = floors(fedges)
    if as_json:
        print(json.dumps({"files": len(graph), "edges": edges,
                          "cross_folder_edges": cross,
                          "folder_edges": fedges, "floors": fl,
                          "file_cycles": file_cycles,
                          "module_cycles": module_cycles,
                          "folder_cycles": folder_cycles}, indent=1,
                         sort_keys=True))
    else:
        print(f"{len(graph)} files, {edges} include edges, "
              f"{cross} across folders")
        for a in sorted(fedges, key=lambda x: (fl[x], x)):
            deps = ", ".join(f"{b} {n}" for b, n in sorted(fedges[a].items()))
            print(f"floor {fl[a]}  {a:9} -> {deps}")
        for c in file_cycles:
            print("file cycle: " + " -> ".join(c))
        for c in module_cycles:
            print("module cycle: " + " -> ".join(c))
        for c in folder_cycles:
            print("folder cycle: " + " -> ".join(c))
        if not (file_cycles or module_cycles or folder_cycles):
            print("no cycle")
    return 1 if file_cycles or folder_cycles else 0


if __name__ == "__main__":
    sys.exit(main())
