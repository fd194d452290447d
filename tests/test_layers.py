"""The layers: companion is pure and imports neither web nor firmware; web
talks to the table only through companion's API; hardware modules are only
imported lazily, inside their drivers."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_companion_never_imports_web_or_firmware():
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & {"web", "firmware", "flask", "gpiozero"})
                 for p in (ROOT / "companion").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_web_does_not_import_firmware():
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & {"firmware", "gpiozero", "rpi_ws281x", "spidev"})
                 for p in (ROOT / "web").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_companion_loads_no_web_firmware_or_hardware_module():
    code = ("import sys, companion, companion.table, companion.cli;"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in"
            " ('web', 'firmware', 'flask', 'gpiozero', 'rpi_ws281x', '_rpi_ws281x', 'spidev'));"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_hardware_libraries_are_imported_lazily():
    # rpi_ws281x segfaults at exit if a PixelStrip is built off a Pi, and spidev
    # needs /dev/spidev: neither may be imported at module level anywhere.
    for p in list((ROOT / "firmware").rglob("*.py")) + list((ROOT / "web").rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        top = set()
        for node in tree.body:
            if isinstance(node, ast.Import):
                top.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                top.add(node.module.split(".")[0])
        assert not top & {"rpi_ws281x", "_rpi_ws281x", "spidev"}, p


def _module_name(path: pathlib.Path) -> str:
    """``companion/deal/pegging.py`` -> ``deal.pegging`` (a package's ``__init__`` is the package)."""
    parts = list(path.relative_to(ROOT / "companion").with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def _companion_imports(path: pathlib.Path) -> set[str]:
    """The companion modules ``path`` imports, at any level (lazy imports inside functions included),
    as dotted names under companion (``table``, ``deal.pegging``). Imports under ``if TYPE_CHECKING:``
    are left out: they name a type for an annotation and are never run (a rule's ``hand: DealHand``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" and len(here) > 1 else here[:-1]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
            if node.module:
                names.add(".".join(base + node.module.split(".")))
            else:
                names.update(".".join(base + [a.name]) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("companion."):
            names.add(node.module.split(".", 1)[1])
    return names


def test_companion_modules_import_each_other_without_cycles():
    # replaying a record builds on the table, never the other way; the tabletop grid builds on the hand;
    # the rules (deal.pegging, steps) build on nothing of the table's
    files = [p for p in (ROOT / "companion").rglob("*.py")]
    graph = {_module_name(p): _companion_imports(p) - {_module_name(p)} for p in files}
    assert "replay" not in graph["table"] and "grid" not in graph["hand"]
    assert not graph["deal.pegging"] & {"table", "commands", "hand", "match", "record"}
    # the rules read the match through companion.view's MatchView, which reads nothing of companion's
    assert graph["view"] == set() and "match" not in graph["claims"] | graph["steps"] | graph["grid.count"]
    # the console (cli) is the composition root of the subcommands: it lists each command module's, and none of
    # them imports it back (what they share is companion.console's, issue 37: no circle cli <-> discard_cli,
    # pegging_cli, season_cli)
    assert {m for m, deps in graph.items() if "cli" in deps} == {"__main__"}
    assert {"console"} <= graph["advice.discard_cli"] & graph["advice.pegging_cli"] & graph["season_cli"]
    assert not graph["console"] & {"cli", "advice.discard_cli", "advice.pegging_cli", "season_cli"}
    graph = {m: deps for m, deps in graph.items() if m not in ("__init__", "__main__")}

    def reach(start, seen):
        for d in graph.get(start, ()):
            if d not in seen:
                seen.add(d)
                reach(d, seen)
        return seen
    assert {m for m in graph if m in reach(m, set())} == set()


def test_the_rules_never_read_the_advice():
    # the advice wing (companion/advice/) reads the rules it advises on; no rule reads it back, and of the rest
    # of companion only the console (the composition root of the subcommands) names it
    files = [p for p in (ROOT / "companion").rglob("*.py")]
    graph = {_module_name(p): _companion_imports(p) for p in files}
    wing = {m for m in graph if m == "advice" or m.startswith("advice.")}
    assert {"advice.discard", "advice.pegging", "advice.pegging_multi", "advice.review"} <= wing
    readers = {m for m, deps in graph.items() if m not in wing and deps & wing}
    assert readers <= {"cli"}, readers
    for rules in ("deal", "deal.pegging", "deal.show", "grid", "grid.count", "grid.placement",
                  "claims", "scoring", "match", "rulesets", "stats", "cards"):
        assert not graph[rules] & wing, rules
    # and the wing reads the rules: the discard advice scores with companion.scoring
    assert "scoring" in graph["advice.discard"]


def test_the_rules_read_the_match_through_its_view():
    # every rule function names what it reads: the match as companion.view.MatchView (which MatchState
    # satisfies, with the same signatures), the hand as its class; none takes ``state: Any`` or ``hand: Any``
    import importlib
    import inspect

    from companion.match import MatchState
    from companion.view import MatchView

    assert isinstance(MatchState(), MatchView)
    for name, member in vars(MatchView).items():
        if inspect.isfunction(member) and not name.startswith("_"):
            theirs = inspect.signature(getattr(MatchState, name))
            assert [(p.name, p.kind, p.default) for p in inspect.signature(member).parameters.values()] == \
                [(p.name, p.kind, p.default) for p in theirs.parameters.values()], name
    typed = 0
    for module in ("claims", "steps", "record", "deal", "deal.pegging", "deal.show", "grid", "grid.count",
                   "grid.placement", "hand", "host"):
        mod = importlib.import_module(f"companion.{module}")
        functions = [f for f in vars(mod).values() if inspect.isfunction(f) and f.__module__ == mod.__name__]
        functions += [f for c in vars(mod).values() if inspect.isclass(c) and c.__module__ == mod.__name__
                      for f in vars(c).values() if inspect.isfunction(f)]
        for f in functions:
            for param in ("state", "hand"):
                if param in f.__annotations__:
                    assert f.__annotations__[param] != "Any", f"{module}.{f.__qualname__}: {param}: Any"
                    typed += 1
    assert typed >= 42
