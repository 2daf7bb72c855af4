"""No import circle among the Python packages (cli/testbed, analysis, loadgen): every import a
module writes — at the top, inside a function, under TYPE_CHECKING — read with `ast`, and the
graph's strongly connected components must all be single files. An interface imports none of
its implementations (testbed.stack vs the local, compose and Swarm stacks; the factory
is testbed.stacks.factory).
Imports by name at run time (importlib.import_module) are not seen, as by any reader."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"testbed": ROOT / "cli" / "testbed", "analysis": ROOT / "analysis", "loadgen": ROOT / "loadgen"}


def modules(packages: dict[str, Path]) -> dict[str, Path]:
    """Dotted module name -> file, for every .py under each package's folder."""
    out = {}
    for name, folder in packages.items():
        for f in sorted(folder.rglob("*.py")):
            parts = [name, *f.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The known modules this file imports: `import a.b`, `from a import b` (b a module, else
    a), `from . import x` resolved against the file's own package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()

    def nearest(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [nearest(a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else nearest(base)
                       for a in node.names]
        else:
            continue
        found.update(t for t in targets if t and t != name)
    return found


def circles(packages: dict[str, Path], group=None) -> list[list[str]]:
    """Every strongly connected component of more than one module (Tarjan), sorted; with group
    (module name -> the name of its group), of more than one group."""
    known = modules(packages)
    graph: dict[str, set[str]] = {}
    for m, f in known.items():
        src = group(m) if group else m
        graph.setdefault(src, set())
        for t in imports(m, f, known):
            dst = group(t) if group else t
            graph.setdefault(dst, set())
            if dst != src:
                graph[src].add(dst)
    graph = {m: sorted(ts) for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return sorted(out)


def test_cli_analysis_and_loadgen_have_no_import_circle():
    found = circles(PACKAGES)
    assert found == [], "import circles (each: modules that import one another): " + "; ".join(
        " <-> ".join(c) for c in found)


def top_group(name: str) -> str:
    """A module's group one level below its package: its subpackage, or itself at the top."""
    return ".".join(name.split(".")[:2])


def test_no_two_groups_of_a_package_import_each_other():
    found = circles(PACKAGES, group=top_group)
    assert found == [], "groups that import one another (their modules may still form no circle): " + "; ".join(
        " <-> ".join(c) for c in found)


def test_the_check_reads_every_package_and_the_stack_factory():
    known = modules(PACKAGES)
    implementations = {"testbed.stacks.local", "testbed.stacks.compose", "testbed.stacks.swarm"}
    graph_of_factory = imports("testbed.stacks.factory", known["testbed.stacks.factory"], known)
    assert {"testbed.stack"} | implementations <= graph_of_factory
    assert imports("testbed.stack", known["testbed.stack"], known).isdisjoint(
        implementations | {"testbed.stacks.factory"})
    assert {"analysis.render.report", "loadgen.shapes", "testbed.run.record.sampler"} <= set(known)


def test_a_circle_through_a_function_level_or_relative_import_is_found(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "iface.py").write_text("def pick():\n    from pkg.sub import impl\n    return impl\n")
    (pkg / "sub" / "impl.py").write_text("from ..iface import pick\n")
    (pkg / "alone.py").write_text("import pkg.iface\n")
    assert circles({"pkg": pkg}) == [["pkg.iface", "pkg.sub.impl"]]
    (pkg / "iface.py").write_text("def pick():\n    return None\n")
    assert circles({"pkg": pkg}) == []
    # no circle of modules, but the group pkg.sub imports pkg.iface, which imports pkg.sub.other
    (pkg / "sub" / "other.py").write_text("")
    (pkg / "iface.py").write_text("from pkg.sub import other\n")
    assert circles({"pkg": pkg}) == []
    assert circles({"pkg": pkg}, group=top_group) == [["pkg.iface", "pkg.sub"]]
