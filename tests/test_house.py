"""The house's import rules (``../shared/STYLE.md``, "Our own house"), read from the code:
no service imports another service's package (the game vocabulary they share is
``services/rules``, the wire vocabulary ``services/wire.py``, the plumbing
``services/platform``), the platform imports no service and never the gateway,
nothing that is deployed imports the development tools, and inside a service the
imports point inward (edge -> handlers -> domain)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICES = ("match", "matchmaker", "collection", "rating", "battle")
SHARED = ("services.platform", "services.rules", "services.wire")


def _imports(where: Path) -> Iterator[tuple[Path, str]]:
    """Every module a package's own code (not its tests), or one module, imports, with
    the importer."""
    for path in [where] if where.is_file() else sorted(where.rglob("*.py")):
        if "tests" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                yield from ((path, alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                # ``from services import wire`` imports services.wire
                yield from ((path, f"{node.module}.{alias.name}") for alias in node.names)


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize("service", SERVICES)
def test_a_service_imports_no_other_services_package(service: str) -> None:
    own = f"services.{service}"
    strays = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path, module in _imports(ROOT / "services" / service)
        if _under(module, "services")
        and not _under(module, own)
        and not any(_under(module, shared) for shared in SHARED)
    ]
    assert strays == []


@pytest.mark.parametrize("shared", ["platform", "rules"])
def test_the_shared_packages_import_no_service_and_no_gateway(shared: str) -> None:
    allowed = ("services.platform",) if shared == "platform" else ("services.rules",)
    strays = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path, module in _imports(ROOT / "services" / shared)
        if (_under(module, "services") and not any(_under(module, a) for a in allowed))
        or _under(module, "gateway")
    ]
    assert strays == []


@pytest.mark.parametrize("deployed", ["services", "gateway", "client"])
def test_nothing_deployed_imports_the_development_tools(deployed: str) -> None:
    strays = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path, module in _imports(ROOT / deployed)
        if _under(module, "devtools") or _under(module, "bench")
    ]
    assert strays == []


OUTER = ("handlers", "server", "store", "mapping", "codec", "consumers", "main", "presenter")


@pytest.mark.parametrize("service", SERVICES)
def test_a_services_imports_point_inward(service: str) -> None:
    """Edge -> handlers -> domain: the domain imports none of the rooms around it, and
    no handler imports the servicer."""
    package = ROOT / "services" / service
    own = f"services.{service}"
    rooms = [package / "domain", package / "domain.py"]
    strays = [
        f"{path.relative_to(ROOT)} imports {module}"
        for room in rooms
        if room.exists()
        for path, module in _imports(room)
        if any(_under(module, f"{own}.{outer}") for outer in OUTER)
    ]
    strays += [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted(package.glob("handlers*.py"))
        for _, module in _imports(path)
        if _under(module, f"{own}.server")
    ]
    assert strays == []


MODULE_LINES = 400
"""No module of our own is longer (issue 17): a longer one is split by what it holds."""
OWN_CODE = ("bench", "client", "devtools", "gateway", "services", "tests", "web/src", "web/e2e")


def test_no_module_of_our_own_is_over_400_lines() -> None:
    long = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for top in OWN_CODE
        for pattern in ("*.py", "*.ts", "*.mjs")
        for path in sorted((ROOT / top).rglob(pattern))
        if "gen" not in path.relative_to(ROOT).parts
        and "node_modules" not in path.parts
        and (lines := len(path.read_text().splitlines())) > MODULE_LINES
    ]
    assert long == [], "split these by what they hold"
