#!/usr/bin/env python3
"""Check that gshmem's source tree stays layered.

Each file may include only headers of its own layer or of a layer below it,
and the folder-level include graph must have no cycles.  Without this check a
convenient "just include it" slowly turns the layers into one tangle that can
no longer be built, tested or understood piece by piece.  ctest runs it.

    scripts/check_layers.py [ROOT]     check the tree (default: this repo)
    scripts/check_layers.py --list     print the layers, their folders and file counts
    scripts/check_layers.py --self-test  check the checker on throwaway trees

Exit status: 0 clean, 1 layering errors (or a failed self-test), 2 usage error.
"""
import argparse, collections, os, re, sys, tempfile

# Bottom to top.  A file belongs to the layer whose folder is the longest prefix of its path.
LAYERS = [
    ("include", "public headers of the core: gshmem.h, gshmem.hpp, types, device/*.cuh"),
    ("host/base", "env registry, logging, sockets, system facts, the Error"),
    ("host/cuda", "the CUDA-only layer (driver, GPU queue, one-thread kernel) and its no-CUDA stand-in"),
    ("host/topology", "hwloc topology: NICs and GPUs near each PE"),
    ("host/bootstrap", "launcher/PMIx/unique-id bootstraps and the node mesh"),
    ("transports/fabric", "libfabric RDM endpoint"),
    ("transports/proxy", "the command channel, the proxy thread, the network"),
    ("host/heap", "allocator, symmetric heap, every segment kind"),
    ("host/team", "teams"),
    ("host/runtime", "Runtime, process globals and context hooks, host operations, device API slow paths"),
    ("host/api", "the gshmem C API"),
    ("device", "libgshmem_device (the kernels' default context)"),
    ("collectives", "collective algorithms' host side, planner, C API"),
    ("moe", "MoE dispatch/combine"),
    ("host/shmem", "OpenSHMEM 1.5"),
    ("host/tools", "gshmemrun and gshmem-info"),
    ("python", "the Python package: the pybind11 module over the C API"),
]
# Public headers (under include/, where the install puts them) that belong to a higher layer:
# the API of that layer, includable only from it and above.
PUBLIC_OF = {
    "include/gshmem/coll": "collectives",
    "include/gshmem/collectives.h": "collectives",
    "include/gshmem/moe.h": "moe",
    "include/gshmem/moe.hpp": "moe",
    "include/gshmem/compat": "host/shmem",
    "include/gshmem/nvshmem": "host/shmem",
}
# Layers whose folders count as one folder in the cycle check. The public headers are installed
# and used as one unit: umbrella headers (gshmem/device.cuh) include their parts, and the parts
# include the shared C types and declarations (gshmem/types.h, gshmem/gshmem.h).
ONE_FOLDER = {"include"}
SOURCE_EXTS = (".c", ".cc", ".cpp", ".h", ".hpp", ".cu", ".cuh")
# Quoted and angle-bracket includes: the repository root and include/ are on every include path,
# so <host/...> reaches a layer as surely as "host/...".
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)')
ORDER_HINT = "a layer may include only its own and lower layers (order: scripts/check_layers.py LAYERS)"
Error = collections.namedtuple("Error", "kind text")  # kind: unlayered, upward, outside, cycle


def under(path, prefix):
    return path == prefix or path.startswith(prefix + "/")


def layer_of(path, layers):
    """Index of the layer owning repo-relative PATH, or None: the longest matching folder, where a
    public header listed in PUBLIC_OF belongs to its layer."""
    names = [folder for folder, _ in layers]
    public = [p for p in PUBLIC_OF if under(path, p) and PUBLIC_OF[p] in names]
    if public:
        return names.index(PUBLIC_OF[max(public, key=len)])
    owners = [i for i, folder in enumerate(names) if under(path, folder)]
    return max(owners, key=lambda i: len(names[i]), default=None)


def folder_of(path, layers):
    """The node of PATH in the folder graph: its directory, or its layer's folder (ONE_FOLDER)."""
    i = layer_of(path, layers)
    return layers[i][0] if i is not None and layers[i][0] in ONE_FOLDER else os.path.dirname(path)


def top_folders(layers):
    return sorted({folder.split("/")[0] for folder, _ in layers})


def source_files(root, layers):
    """Repo-relative source files under the top folders the layers live in.

    Everything else (tests/, perftest/, examples/, scripts/, cmake/, build*/, .git/) is not layered."""
    found = []
    for top in top_folders(layers):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "build")))
            rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
            found += [f"{rel}/{f}" for f in sorted(filenames) if f.endswith(SOURCE_EXTS)]
    return found


def resolve(root, including, name, quoted=True):
    """Where the compiler finds NAME: own directory (quoted only), repo root, include/.  None if not
    in the repo (a system header)."""
    for base in ((os.path.dirname(including),) if quoted else ()) + ("", "include"):
        rel = os.path.normpath(os.path.join(base, name)).replace(os.sep, "/")
        if not rel.startswith("../") and os.path.isfile(os.path.join(root, rel)):
            return rel
    return None


def scan_includes(root, files):
    """Yield (file, line number, written name, resolved path) for each include found in the repo."""
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                name = m and (m.group(1) or m.group(2))
                target = m and resolve(root, path, name, quoted=m.group(1) is not None)
                if target:
                    yield path, lineno, name, target


def strongly_connected(graph):
    """Tarjan's algorithm; recursion is fine, the graph has a few dozen folders."""
    index, low, stack, comps = {}, {}, [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            cut = stack.index(node)
            comps.append(set(stack[cut:]))
            del stack[cut:]

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return comps


def cycle_through(graph, comp):
    """A shortest concrete cycle from the component's first folder back to itself (breadth-first)."""
    start = min(comp)
    parent, queue = {}, collections.deque([start])
    while queue:
        node = queue.popleft()
        for nxt in sorted(graph[node] & comp):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return path[::-1] + [start]
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    raise AssertionError("a strongly connected component always has a cycle")


def check(root, layers):
    """All layering errors under ROOT, plus (files, folders, includes) counts for the report."""
    files = source_files(root, layers)
    errors = [Error("unlayered", f"{p}: not in any declared layer (add its folder to LAYERS in scripts/check_layers.py)")
              for p in files if layer_of(p, layers) is None]
    graph = {folder_of(p, layers): set() for p in files}
    example = {}  # (folder, folder) -> "PATH:LINE" of the first include making that edge
    includes = 0
    for path, lineno, name, target in scan_includes(root, files):
        includes += 1
        mine, theirs = layer_of(path, layers), layer_of(target, layers)
        # An unlayered target inside the layered folders is already reported as an unlayered file.
        if theirs is None and mine is not None and target.split("/")[0] not in top_folders(layers):
            errors.append(Error("outside", f'{path}:{lineno}: includes "{name}" ({target}), which is in no declared layer'))
        elif None not in (mine, theirs) and theirs > mine:
            errors.append(Error("upward", f'{path}:{lineno}: includes "{name}" (layer {layers[theirs][0]}) from layer '
                                          f'{layers[mine][0]}, which is below it; {ORDER_HINT}'))
        a, b = folder_of(path, layers), folder_of(target, layers)
        if a != b and a in graph and b in graph:
            graph[a].add(b)
            example.setdefault((a, b), f"{path}:{lineno}")
    for comp in sorted((c for c in strongly_connected(graph) if len(c) > 1), key=min):
        cycle = cycle_through(graph, comp)
        lines = [f"cycle: {' -> '.join(cycle)}"]
        lines += [f"  {example[(a, b)]}: {a} -> {b}" for a, b in zip(cycle, cycle[1:])]
        errors.append(Error("cycle", "\n".join(lines)))
    return errors, (len(files), len(graph), includes)


def report(errors, counts, layers):
    kinds = collections.Counter(e.kind for e in errors)
    files, folders, includes = counts
    line = (f"layers: {len(layers)} declared, {files} files in {folders} folders, {includes} includes checked; "
            f"{kinds['upward']} upward includes, {kinds['cycle']} folder cycles")
    stray = kinds["unlayered"] + kinds["outside"]
    return line + (f", {stray} files or includes outside every layer" if stray else "")


def list_layers(root, layers):
    per_folder = collections.Counter(os.path.dirname(p) for p in source_files(root, layers))
    for i, (folder, what) in enumerate(layers):
        mine = {d: n for d, n in per_folder.items() if layer_of(d, layers) == i}
        state = f"{sum(mine.values())} files" if os.path.isdir(os.path.join(root, folder)) else "missing"
        print(f"{i + 1:2} {folder:18} {what} ({state})")
        for d in sorted(mine):
            print(f"     {d:30} {mine[d]}")


def self_test():
    """Run check() on throwaway trees whose errors are known; True when it finds exactly those."""
    # api.h's three includes must all be ignored: system header, commented out, not in the repo.
    broken = {
        "include/gshmem/api.h": '#include <stdio.h>\n// #include "host/heap/heap.hpp"\n#include "gshmem/gen.h"\n',
        "host/base/log.cpp": '#include "gshmem/api.h"\n#include "host/runtime/rt.hpp"\n',
        "host/base/env.cpp": "#include <gshmem/coll/ws.cuh>\n",  # angle brackets, a higher layer's public header
        "include/gshmem/coll/ws.cuh": "",
        "host/runtime/rt.hpp": '#include "../base/log.hpp"\n',
        "host/base/log.hpp": "",
        "host/heap/heap.hpp": '# include "sub/seg.hpp"\n',
        "host/heap/sub/seg.hpp": '#include "host/heap/heap.hpp"\n',
        "host/stray.cpp": '#include "gshmem/api.h"\n',
        "host/api/capi.cpp": '#include "tests/util.hpp"\n',
        "tests/util.hpp": '#include "host/api/nothing.hpp"\n',
    }
    want = [
        Error("unlayered", "host/stray.cpp: not in any declared layer (add its folder to LAYERS in scripts/check_layers.py)"),
        Error("outside", 'host/api/capi.cpp:1: includes "tests/util.hpp" (tests/util.hpp), which is in no declared layer'),
        Error("upward", 'host/base/env.cpp:1: includes "gshmem/coll/ws.cuh" (layer collectives) from layer host/base, '
                        f"which is below it; {ORDER_HINT}"),
        Error("upward", 'host/base/log.cpp:2: includes "host/runtime/rt.hpp" (layer host/runtime) from layer host/base, '
                        f"which is below it; {ORDER_HINT}"),
        Error("cycle", "cycle: host/base -> host/runtime -> host/base\n  host/base/log.cpp:2: host/base -> host/runtime\n"
                       "  host/runtime/rt.hpp:1: host/runtime -> host/base"),
        Error("cycle", "cycle: host/heap -> host/heap/sub -> host/heap\n  host/heap/heap.hpp:1: host/heap -> host/heap/sub\n"
                       "  host/heap/sub/seg.hpp:1: host/heap/sub -> host/heap"),
    ]
    clean = dict(broken, **{"host/base/log.cpp": '#include "gshmem/api.h"\n', "host/heap/sub/seg.hpp": "",
                            "host/base/env.cpp": ""})
    del clean["host/stray.cpp"], clean["host/api/capi.cpp"]
    results = [self_test_tree("broken", broken, want, 8), self_test_tree("clean", clean, [], 3)]
    return all(results)


def self_test_tree(name, tree, expected, includes):
    with tempfile.TemporaryDirectory() as root:
        for path, text in tree.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        got, counts = check(root, LAYERS)
    good = got == expected and counts[2] == includes
    print(f"self-test {name} tree: {'ok' if good else 'FAILED'}")
    if not good:  # show both sides so a failure can be read without a debugger
        for label, errs, n in (("expected", expected, includes), ("got", got, counts[2])):
            print(f"  {label} ({n} includes):", *(e.text for e in errs), sep="\n")
    return good


def main(argv):
    default_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description="Check that the source tree is layered (see LAYERS).")
    parser.add_argument("root", nargs="?", default=default_root, help="repository root (default: %(default)s)")
    parser.add_argument("--list", action="store_true", help="print each layer with its folders and file counts")
    parser.add_argument("--self-test", action="store_true", help="check the checker on throwaway trees")
    args = parser.parse_args(argv)
    if args.self_test:
        return 0 if self_test() else 1
    if not os.path.isdir(args.root):
        parser.error(f"{args.root}: not a directory")  # exits 2
    if args.list:
        list_layers(args.root, LAYERS)
        return 0
    errors, counts = check(args.root, LAYERS)
    for e in errors:
        print(e.text)
    print(report(errors, counts, LAYERS))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
