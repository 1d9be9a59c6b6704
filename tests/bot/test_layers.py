"""The layering of bot/ and engine/ (CONVENTIONS.md): no import cycle in either, not even
one hidden behind ``TYPE_CHECKING`` or inside a function, the engine never importing the
bot, and the table (``bot/table/``) a pure state machine that knows no service, store,
outbox, renderer, clock or words, not even through what it imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for top in ("bot", "engine") for p in (ROOT / top).rglob("*.py")}


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The bot and engine modules ``name`` imports, wherever in the file (TYPE_CHECKING
    and function bodies too)."""
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


def test_no_import_cycle_in_bot_or_engine_not_even_behind_type_checking():
    try:
        tuple(TopologicalSorter(graph()).static_order())
    except CycleError as e:
        raise AssertionError(f"an import cycle: {' -> '.join(e.args[1])}") from None


def test_the_engine_never_imports_the_bot():
    for name, deps in graph().items():
        if name.split(".")[0] == "engine":
            assert not {d for d in deps if d.split(".")[0] == "bot"}, name


def test_the_table_imports_no_service_store_outbox_renderer_or_clock():
    allowed = {"bot.models", "bot.options"}
    for name, deps in graph().items():
        if name == "bot.table" or name.startswith("bot.table."):
            outside = {d for d in deps if d.startswith("bot.") and not d.startswith("bot.table")}
            assert outside <= allowed, (name, sorted(outside - allowed))


def test_the_table_picks_no_words_it_calls_no_translator_the_edge_does():
    # the table answers in facts (``bot.table.Answer``: a key and plain data); the
    # edge says them in the reader's language (``bot.answers``)
    for name, path in modules().items():
        if name == "bot.table" or name.startswith("bot.table."):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            calls = [
                node.lineno
                for node in ast.walk(tree)
                if isinstance(node, ast.Call)
                and (
                    (isinstance(node.func, ast.Name) and node.func.id in {"t", "plural"})
                    or (isinstance(node.func, ast.Attribute) and node.func.attr in {"t", "plural"})
                )
            ]
            assert not calls, (name, calls)


def test_the_table_calls_no_player_every_computer_decision_is_made_at_the_edge():
    for name, deps in graph().items():
        if name == "bot.table" or name.startswith("bot.table."):
            players = {d for d in deps if d == "engine.players" or d.startswith("engine.players.")}
            assert not players and "bot.computer" not in deps, (name, sorted(players))


def loaded_by(module: str) -> set[str]:
    """The bot modules that importing ``module`` loads, in a fresh interpreter."""
    code = f"import sys, {module}; print(*sorted(m for m in sys.modules if m.startswith('bot')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def test_importing_the_table_loads_no_renderer_outbox_store_or_service():
    loaded = loaded_by("bot.table")
    assert "bot.table.machine" in loaded
    far = {"bot.render", "bot.outbox", "bot.store", "bot.game", "bot.publish", "bot.timers"}
    assert not {m for m in loaded if m in far or m.startswith("bot.render.")}


def test_the_message_model_lies_below_the_renderers_and_the_outbox():
    deps = graph()
    assert not {d for d in deps["bot.messages"] if d.startswith("bot.")}
    assert "bot.messages" in deps["bot.outbox"]
    assert not {d for d in deps["bot.outbox"] if d.startswith("bot.render")}


def test_the_service_is_given_its_collaborators_and_knows_none_of_its_callers():
    # bot/app.py builds the publisher, the timers, the lobby, the DM input and the
    # chats' lifecycle; the service knows them only as the protocols it declares
    above = {"bot.publish", "bot.timers", "bot.lobby", "bot.chats"}
    above |= {"bot.context", "bot.app"}
    deps = graph()
    assert not deps["bot.game"] & above
    assert not {d for d in deps["bot.game"] if d.startswith("bot.webapp")}


def test_the_mini_app_knows_the_running_bot_only_by_what_it_uses():
    for name, deps in graph().items():
        if name.startswith("bot.webapp"):
            assert not deps & {"bot.game", "bot.context", "bot.app", "bot.publish"}, name
