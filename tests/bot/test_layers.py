"""The layering of bot/ (CONVENTIONS.md): no import cycle, not even one hidden behind
``TYPE_CHECKING``, and the table (``bot/table/``) a pure state machine that knows no
service, store, outbox, renderer or clock."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in (ROOT / "bot").rglob("*.py")}


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The bot modules ``name`` imports, wherever in the file (TYPE_CHECKING too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.add(sub if sub in known else base)
    return {m for m in out if m in known and m != name}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_bot_has_no_import_cycle_not_even_behind_type_checking():
    try:
        tuple(TopologicalSorter(graph()).static_order())
    except CycleError as e:
        raise AssertionError(f"an import cycle in bot/: {' -> '.join(e.args[1])}") from None


def test_the_table_imports_no_service_store_outbox_renderer_or_clock():
    allowed = {"bot.models", "bot.codec", "bot.i18n", "bot.options", "bot.taps", "bot.computer"}
    for name, deps in graph().items():
        if name == "bot.table" or name.startswith("bot.table."):
            outside = {d for d in deps if not d.startswith("bot.table")}
            assert outside <= allowed, (name, sorted(outside - allowed))
