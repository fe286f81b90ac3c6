"""The layers import one way: the core never reaches the adapters or I/O, the adapters one way.

* The core (``perfstats/``) imports no adapter, plotting, cloud or network
  library when it is imported: checked in a fresh interpreter, after
  ``import perfstats`` and after importing each core module.
* The adapter subpackages import downwards only: ``cli`` -> ``report``,
  ``ab``, ``driver`` -> ``targets``, ``records`` -> the core. Peers of one
  tier may import each other, and no subpackages form a cycle; nor do the
  adapter modules among themselves at import time.
* Nothing outside a subpackage imports its private names, and the adapters
  use only the core's public API (no ``perfstats._x`` module, no ``_name``).

The adapter imports are read with :mod:`ast` (every import statement,
also those inside functions), so a lazy import cannot hide a back edge.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "perfstats"
ADAPTERS = REPO / "adapters"
ADAPTERS_NAME = "perfstats.adapters"

# Libraries the core must not load when imported: the adapter layer, plotting,
# cloud SDKs, network clients and servers, databases, images.
FORBIDDEN_IN_CORE = (
    "perfstats.adapters",
    "matplotlib",
    "boto3",
    "botocore",
    "moto",
    "requests",
    "urllib3",
    "http.client",
    "urllib.request",
    "sqlite3",
    "psutil",
    "PIL",
    "functions_framework",
)

# The tier of each adapter subpackage: a module may import its own tier or
# a lower one (a larger number), never a higher one.
TIERS = {
    "cli": 0,
    "report": 1,
    "ab": 1,
    "driver": 1,
    "targets": 2,
    "records": 2,
}


def _module_name(path: Path, root: Path, package: str) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((package, *parts))


def _modules(root: Path, package: str) -> dict[str, Path]:
    return {
        _module_name(p, root, package): p
        for p in sorted(root.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _imports(path: Path, module: str, *, top_level_only: bool = False) -> Iterator[tuple[str, str]]:
    """``(module imported, name)`` for each import in ``path`` (name "" for ``import x``).

    Relative imports are resolved against ``module``; with ``top_level_only``
    imports inside functions (run later, not at import time) are left out.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    nodes: list[ast.AST]
    if top_level_only:
        nodes = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        nodes += [
            n
            for stmt in tree.body
            if isinstance(stmt, (ast.If, ast.Try))
            for n in ast.walk(stmt)
            if isinstance(n, (ast.Import, ast.ImportFrom))
        ]
    else:
        nodes = list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ""
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                # A package's own name is its first level; a module's is its parent.
                keep = len(base) - node.level + (1 if is_package else 0)
                prefix = ".".join(base[:keep])
                target = f"{prefix}.{node.module}" if node.module else prefix
            else:
                target = node.module or ""
            for alias in node.names:
                yield target, alias.name


def _subpackage(module: str) -> str | None:
    """The adapter subpackage a module belongs to (None for the facade itself)."""
    rest = module[len(ADAPTERS_NAME) :].lstrip(".")
    return rest.split(".")[0] if rest else None


ADAPTER_MODULES = _modules(ADAPTERS, ADAPTERS_NAME)
CORE_MODULES = _modules(CORE, "perfstats")


def _resolve(target: str, name: str) -> str:
    """``from package import module`` names a module: the edge goes to it."""
    candidate = f"{target}.{name}" if name else target
    return candidate if candidate in ADAPTER_MODULES else target


def _adapter_edges(*, top_level_only: bool = False) -> Iterator[tuple[str, str, str]]:
    for module, path in ADAPTER_MODULES.items():
        for target, name in _imports(path, module, top_level_only=top_level_only):
            if target == ADAPTERS_NAME or target.startswith(ADAPTERS_NAME + "."):
                yield module, _resolve(target, name), name


def test_the_layout_is_the_one_the_tiers_describe() -> None:
    found = {_subpackage(m) for m in ADAPTER_MODULES} - {None}
    assert found == set(TIERS), "a new adapter subpackage needs its tier in TIERS"
    loose = [m for m in ADAPTER_MODULES if _subpackage(m) is not None and m.count(".") == 2]
    assert not [m for m in loose if m.split(".")[-1] not in TIERS], (
        f"modules outside the subpackages: {loose}"
    )


def test_the_core_imports_no_adapter_code() -> None:
    bad = [
        (module, target)
        for module, path in CORE_MODULES.items()
        for target, _ in _imports(path, module)
        if target == ADAPTERS_NAME or target.startswith(ADAPTERS_NAME + ".")
    ]
    assert not bad, f"the core imports the adapters: {bad}"


@pytest.mark.slow
def test_importing_the_core_loads_no_io_or_adapter_library() -> None:
    probe = (
        "import importlib, json, sys\n"
        "forbidden = json.loads(sys.argv[1]); modules = json.loads(sys.argv[2])\n"
        "def loaded():\n"
        "    return sorted(f for f in forbidden if f in sys.modules)\n"
        "import perfstats\n"
        "found = {'perfstats': loaded()}\n"
        "for name in modules:\n"
        "    if loaded():\n"
        "        break\n"
        "    importlib.import_module(name)\n"
        "    found[name] = loaded()\n"
        "print(json.dumps({k: v for k, v in found.items() if v}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(FORBIDDEN_IN_CORE), json.dumps([*CORE_MODULES])],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    assert json.loads(done.stdout) == {}, f"importing the core loaded: {done.stdout}"


def test_adapter_subpackages_import_downwards_only() -> None:
    back = sorted(
        f"{module} -> {target}"
        for module, target, _ in _adapter_edges()
        if (src := _subpackage(module)) is not None
        and (dst := _subpackage(target)) is not None
        and TIERS[dst] < TIERS[src]
    )
    assert not back, "back edges (a lower tier imports a higher one):\n" + "\n".join(back)


def test_adapter_subpackages_form_no_cycle() -> None:
    graph = nx.DiGraph()
    for module, target, _ in _adapter_edges():
        src, dst = _subpackage(module), _subpackage(target)
        if src is not None and dst is not None and src != dst:
            graph.add_edge(src, dst)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"subpackages import each other in a cycle: {cycles}"


def test_adapter_modules_form_no_import_time_cycle() -> None:
    graph = nx.DiGraph()
    for module, target, _ in _adapter_edges(top_level_only=True):
        # A package imports its own modules to list its names; that is no cycle.
        if module != target and not target.startswith(module + "."):
            graph.add_edge(module, target)
    cycles = [c for c in nx.simple_cycles(graph) if len(c) > 1]
    assert not cycles, f"modules import each other at import time: {cycles}"


def test_no_private_name_crosses_a_subpackage_boundary() -> None:
    bad = []
    for module, target, name in _adapter_edges():
        src, dst = _subpackage(module), _subpackage(target)
        if src == dst:
            continue
        private_module = any(part.startswith("_") for part in target.split("."))
        if private_module or name.startswith("_"):
            bad.append(f"{module}: from {target} import {name}")
    assert not bad, "private names imported across subpackages:\n" + "\n".join(bad)


def test_adapters_use_only_the_public_core() -> None:
    bad = []
    for module, path in ADAPTER_MODULES.items():
        for target, name in _imports(path, module):
            if target != "perfstats" and not target.startswith("perfstats."):
                continue
            if target.startswith(ADAPTERS_NAME):
                continue
            parts = target.split(".")[1:]
            if any(p.startswith("_") for p in parts) or name.startswith("_"):
                bad.append(f"{module}: from {target} import {name or '*'}")
    assert not bad, "adapters reach into the core's private parts:\n" + "\n".join(bad)


def test_the_checks_see_a_back_edge_and_a_private_import(tmp_path: Path) -> None:
    # The parser must resolve relative imports, or the checks above pass vacuously.
    records = tmp_path / "records"
    records.mkdir()
    (records / "__init__.py").write_text("from .record import x\n")
    bad = records / "record.py"
    bad.write_text(
        "from ..cli.main import main\nfrom perfstats._rng import as_generator\n"
        "def f():\n    from ..targets import _hidden\n"
    )
    found = list(_imports(bad, f"{ADAPTERS_NAME}.records.record"))
    assert (f"{ADAPTERS_NAME}.cli.main", "main") in found
    assert ("perfstats._rng", "as_generator") in found
    assert (f"{ADAPTERS_NAME}.targets", "_hidden") in found
    top = list(_imports(bad, f"{ADAPTERS_NAME}.records.record", top_level_only=True))
    assert (f"{ADAPTERS_NAME}.targets", "_hidden") not in top
    init = list(_imports(records / "__init__.py", f"{ADAPTERS_NAME}.records"))
    assert init == [(f"{ADAPTERS_NAME}.records.record", "x")]


# ---------------------------------------------------------------------------
# The core: subpackages by question, imported one way.

# What each core subpackage may import besides itself and the private
# foundation (the top-level ``_x`` modules and ``_kernels``). precision is at
# the bottom; characterization and comparison stand on it; the rules on
# those; replay on the rules; system and the gate on comparison; plots on
# top of everything.
CORE_ALLOWED: dict[str, frozenset[str]] = {
    "precision": frozenset(),
    "characterization": frozenset({"precision"}),
    "comparison": frozenset({"precision"}),
    "planning": frozenset({"precision"}),
    "rules": frozenset({"precision", "characterization", "comparison"}),
    "replay": frozenset({"precision", "characterization", "comparison", "rules"}),
    "system": frozenset({"precision", "comparison"}),
    "regression_gate": frozenset({"precision", "comparison"}),
    "plots": frozenset(
        {
            "precision",
            "characterization",
            "comparison",
            "planning",
            "rules",
            "replay",
            "system",
            "regression_gate",
        }
    ),
}
MAX_PUBLIC_TOP_LEVEL = 10


def _core_part(module: str) -> str | None:
    """The core subpackage of a module; None for the package itself and the foundation."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1].startswith("_"):
        return None
    return parts[1]


def _core_edges(*, top_level_only: bool = False) -> Iterator[tuple[str, str, str]]:
    for module, path in CORE_MODULES.items():
        for target, name in _imports(path, module, top_level_only=top_level_only):
            if target.startswith("perfstats.adapters") or not (
                target == "perfstats" or target.startswith("perfstats.")
            ):
                continue
            candidate = f"{target}.{name}" if name else target
            yield module, candidate if candidate in CORE_MODULES else target, name


def test_the_core_top_level_holds_few_public_entries() -> None:
    entries = sorted(
        p.stem if p.is_file() else p.name
        for p in CORE.iterdir()
        if not p.name.startswith(("_", "."))
        and (p.suffix == ".py" or (p / "__init__.py").exists())
    )
    assert set(entries) == set(CORE_ALLOWED), f"public entries of perfstats/: {entries}"
    assert len(entries) + 1 <= MAX_PUBLIC_TOP_LEVEL  # and __init__


def test_core_subpackages_import_in_one_direction() -> None:
    bad = sorted(
        f"{module} -> {target}"
        for module, target, _ in _core_edges()
        if (src := _core_part(module)) is not None
        and (dst := _core_part(target)) is not None
        and src != dst
        and dst not in CORE_ALLOWED[src]
    )
    assert not bad, "imports against the order of the core:\n" + "\n".join(bad)


def test_the_foundation_imports_no_core_subpackage() -> None:
    bad = sorted(
        f"{module} -> {target}"
        for module, target, _ in _core_edges()
        if _core_part(module) is None
        and module != "perfstats"
        and _core_part(target) is not None
    )
    assert not bad, "the private foundation imports a subpackage:\n" + "\n".join(bad)


def test_no_private_core_name_crosses_a_subpackage_boundary() -> None:
    bad = []
    for module, target, name in _core_edges():
        src, dst = _core_part(module), _core_part(target)
        if dst is None or src == dst:
            continue  # the foundation is shared by every subpackage
        parts = target.split(".")[2:]
        if any(p.startswith("_") for p in parts) or name.startswith("_"):
            bad.append(f"{module}: from {target} import {name}")
    # a private method of the queueing models called from outside the package
    for module, path in CORE_MODULES.items():
        text = path.read_text(encoding="utf-8")
        if not module.startswith("perfstats.system.queueing") and "._unchecked_" in text:
            bad.append(f"{module}: calls a queueing model's _unchecked_ method")
    assert not bad, "private names used across core subpackages:\n" + "\n".join(bad)


def test_core_modules_form_no_cycle() -> None:
    # Every import counts, also those inside functions: a lazy import that
    # closes a cycle still ties the two modules together.
    graph = nx.DiGraph()
    for module, target, _ in _core_edges():
        if module != target and not target.startswith(module + ".") and target in CORE_MODULES:
            if module.endswith(".__init__") or CORE_MODULES[module].name == "__init__.py":
                continue  # a package lists its modules' names
            graph.add_edge(module, target)
    cycles = [c for c in nx.simple_cycles(graph) if len(c) > 1]
    assert not cycles, f"core modules import each other in a cycle: {cycles}"


def _confusable(a: str, b: str) -> bool:
    a, b = a.lstrip("_"), b.lstrip("_")
    if a.rstrip("s") == b.rstrip("s"):
        return True
    return any(
        long.startswith(short + "_") or long.endswith("_" + short)
        for short, long in ((a, b), (b, a))
    )


def test_core_module_names_are_not_confusable() -> None:
    # _kernels are named for the public module they serve, on purpose.
    names = sorted(
        {
            m.split(".")[-1]
            for m, p in CORE_MODULES.items()
            if p.name != "__init__.py" and "_kernels" not in m.split(".")
        }
        | {m.split(".")[-1] for m, p in CORE_MODULES.items() if p.name == "__init__.py"}
        - {"perfstats"}
    )
    modules: dict[str, list[str]] = {}
    for m in CORE_MODULES:
        if "_kernels" not in m.split(".") and m != "perfstats":
            modules.setdefault(m.split(".")[-1], []).append(m)
    bad = [f"{a} / {b}" for i, a in enumerate(names) for b in names[i + 1 :] if _confusable(a, b)]
    bad += [f"{name}: {where}" for name, where in modules.items() if len(where) > 1]
    assert not bad, "confusable module names in the core:\n" + "\n".join(bad)


def test_the_confusable_check_sees_plurals_prefixes_and_suffixes() -> None:
    assert _confusable("interval", "intervals")
    assert _confusable("gate", "regression_gate")
    assert _confusable("change", "change_points")
    assert _confusable("_wording", "wording")
    assert not _confusable("interval", "bootstrap")
