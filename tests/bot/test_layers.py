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
    allowed = {"bot.data.saved", "bot.data.options"}
    for name, deps in graph().items():
        if name == "bot.table" or name.startswith("bot.table."):
            outside = {d for d in deps if d.startswith("bot.") and not d.startswith("bot.table")}
            assert outside <= allowed, (name, sorted(outside - allowed))


def test_the_table_picks_no_words_it_calls_no_translator_the_edge_does():
    # the table answers in facts (``bot.table.Answer``: a key and plain data); the
    # edge says them in the reader's language (``bot.views.answers``)
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
            assert not players and "bot.edges.computer" not in deps, (name, sorted(players))


def loaded_by(module: str) -> set[str]:
    """The bot modules that importing ``module`` loads, in a fresh interpreter."""
    code = f"import sys, {module}; print(*sorted(m for m in sys.modules if m.startswith('bot')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def test_importing_the_table_loads_no_renderer_outbox_store_or_service():
    loaded = loaded_by("bot.table")
    assert "bot.table.machine" in loaded
    far = {
        "bot.views",
        "bot.delivery.outbox",
        "bot.data.store",
        "bot.service.game",
        "bot.delivery.publish",
        "bot.edges.timers",
    }
    assert not {m for m in loaded if m in far or m.startswith("bot.views.")}


# The layers of bot/, lowest first: a folder may import the engine, the folders listed
# before it and itself, nothing above (each folder's __init__ says the same in words).
LAYERS = ["i18n", "infra", "data", "table", "views", "service", "delivery", "edges"]
# the top: the process and its wiring, and the tools that run a whole bot
TOP = {"bot", "bot.__main__", "bot.app", "bot.hosting", "bot.simulate"}
TOOLS = {"sandbox", "fake_telegram"}


def layer_of(name: str) -> str:
    """The folder of a bot module (``bot.views.projection`` -> ``views``), or its name."""
    return name.split(".")[1] if name.count(".") >= 1 and name not in TOP else name


def test_ls_bot_shows_the_layers_every_module_in_a_folder():
    names = {
        p.name for p in (ROOT / "bot").iterdir() if not p.name.startswith((".", "__pycache__"))
    }
    folders = {p.name for p in (ROOT / "bot").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(LAYERS) | TOOLS, sorted(folders)
    loose = {n.removesuffix(".py") for n in names - folders}
    assert {f"bot.{n}" for n in loose if n != "__init__"} | {"bot"} == TOP, sorted(loose)
    for folder in LAYERS:
        doc = ast.get_docstring(ast.parse((ROOT / "bot" / folder / "__init__.py").read_text()))
        assert doc and "May import" in doc, folder


def test_no_arrow_runs_up_a_layer():
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    for name, deps in graph().items():
        if not name.startswith("bot.") or name in TOP:
            continue
        mine = layer_of(name)
        for d in deps:
            if not d.startswith("bot.") or layer_of(d) == mine:
                continue
            theirs = layer_of(d)
            if mine in TOOLS:
                assert d not in TOP - {"bot.app"} and (mine == "sandbox" or theirs == mine), (
                    name,
                    d,
                )
                continue
            assert theirs in rank and rank[theirs] < rank[mine], (
                f"{name} ({mine}) imports {d} ({theirs})"
            )


def test_no_module_name_repeats_with_another_meaning():
    seen: dict[str, Path] = {}
    for top in ("bot", "engine"):
        for p in (ROOT / top).rglob("*.py"):
            if p.name == "__init__.py":
                continue
            assert p.name not in seen, f"{p.relative_to(ROOT)} and {seen[p.name].relative_to(ROOT)}"
            seen[p.name] = p


def test_each_public_name_has_one_import_path():
    """A name defined in one bot module is not re-exported under another module's name
    (a package's __init__ may gather its own folder's names: ``bot.table``)."""
    known = modules()
    for name, path in known.items():
        if not name.startswith("bot.") or path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        exported = set()
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id == "__all__":
                        exported = {e.value for e in node.value.elts}  # type: ignore[attr-defined]
        imported = {
            a.asname or a.name
            for node in tree.body
            if isinstance(node, ast.ImportFrom)
            for a in node.names
        }
        assert not exported & imported, (name, sorted(exported & imported))


def test_a_packages_door_is_the_one_path_to_its_names_from_outside():
    """A name a package's ``__init__`` gathers (``bot.table``'s ``apply``, ``Answer``…) is
    imported from that package by every module outside it; only its own modules import
    it from where it is defined."""
    known = modules()
    doors: dict[str, set[str]] = {}
    for name, path in known.items():
        if path.name == "__init__.py" and name.startswith("bot."):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
                ):
                    doors[name] = {e.value for e in node.value.elts}  # type: ignore[attr-defined]
    files = [*known.items(), *((p.stem, p) for p in (ROOT / "tests").rglob("*.py"))]
    for name, path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            for door, names in doors.items():
                inside = name == door or name.startswith(door + ".")
                if node.module.startswith(door + ".") and not inside:
                    wrong = {a.name for a in node.names} & names
                    assert not wrong, f"{path.relative_to(ROOT)}: {sorted(wrong)} from {door}"


def test_the_message_model_lies_below_the_renderers_and_the_outbox():
    deps = graph()
    assert not {d for d in deps["bot.views.messages"] if d.startswith("bot.")}
    assert "bot.views.messages" in deps["bot.delivery.outbox"]
    assert not {
        d
        for d in deps["bot.delivery.outbox"]
        if d.startswith("bot.views.") and d != "bot.views.messages"
    }


def test_the_service_is_given_its_collaborators_and_knows_none_of_its_callers():
    # bot/app.py builds the publisher, the timers, the lobby, the DM input and the
    # chats' lifecycle; the service knows them only as the protocols it declares
    deps = graph()
    for name in ("bot.service.game", "bot.service.live"):
        assert not {d for d in deps[name] if d.startswith(("bot.delivery", "bot.edges"))}, name
        assert not deps[name] & {"bot.app", "bot.hosting"}


def test_the_mini_app_knows_the_running_bot_only_by_what_it_uses():
    for name, deps in graph().items():
        if name.startswith("bot.edges.miniapp"):
            assert not deps & {
                "bot.service.game",
                "bot.edges.context",
                "bot.app",
                "bot.delivery.publish",
            }, name
