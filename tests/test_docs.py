"""The README and docs/ show only commands, options, outputs and links that exist.

Every ``balsim ...`` line of a fenced code block (with no language, ``sh`` or ``console``) is
checked against the command's click definition: the command, each option and the number of
arguments must exist, and a value must convert (a choice, a number; an input folder may be
missing, when a command that is not played here writes it).  The commands that cost a few
seconds are then played, in the order the page shows them, in a folder of their own
(relative outputs land there), with a small number of games in place of the page's
(``PLAYED``); the others are parsed only, and ``PARSED_ONLY``, ``COSTLY_PLAYERS`` and
``COSTLY_OPTIONS`` say why.  After a page's commands, every path the page names
under a folder its commands wrote (``runs/ek/players/*.parquet``) must exist, and each Python
block that reads only what they wrote is executed; the other Python blocks must compile and
their ``simulator`` imports resolve (an SQL block is not run: DuckDB is no dependency).
Every relative link of every page must resolve; each game page names every column its tables
have and every ASSUMED value of its rules; the module map lists every module.
"""

from __future__ import annotations

import ast
import importlib
import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.game import GAME_NAMES

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(
    p.relative_to(ROOT).as_posix()
    for p in [ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md")]
    if p.exists()
)
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
SHELL = {"", "sh", "bash", "shell", "console"}
# the option that sets how much a played command plays, and the small value it gets here
PLAYED = {
    "run": ("--games", "200"),
    "sweep": ("--games", "100"),
    "bench": ("--games", "100"),
    "ask": ("--games", "24"),
    "tune": ("--budget", "5000"),
    "fit": ("--budget", "2000"),
    "replay": None,
    "report": None,
    "verify": None,
    "rules": None,
    "policies": None,
    "assumed": None,
}
PARSED_ONLY = {
    "study": "plays every game at several player counts, its screens and skill curves",
    "sensitivity": "a screen is (factors + 1) x trajectories runs before its first verdict",
    "skill": "plays the search player, hundreds of playouts a decision, at every budget",
    "challenge": "tunes every other policy against the incumbent",
    "adapt": "re-tunes every policy of the field under the rules",
    "learn": "fits the learned player on thousands of the search's decisions under a variant",
    "matrix": "adapts the field of each rung before it plays a cell",
}
# players whose decisions cost hundreds of playouts, or a field adapted first: parsed only
COSTLY_PLAYERS = re.compile(r"\b(search|adapted)\b")
# options that make a played command costly whatever its number of games: parsed only
COSTLY_OPTIONS = {
    "--store": "bench plays as many games again, with their Parquet output",
    "--scheduler": "plays on a dask cluster (tests/test_cluster.py starts one)",
}
PATH = re.compile(r"(?<![\w/.-])((?:runs|reports)/[\w.*/-]+)")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def text(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def blocks(page: str, langs: set[str]) -> list[str]:
    return [body for lang, body in FENCE.findall(text(page)) if lang in langs]


def commands(page: str) -> list[list[str]]:
    """The ``balsim`` command lines of a page's shell blocks, as arguments after ``balsim``."""
    found = []
    for body in blocks(page, SHELL):
        for line in body.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ")
            if line.startswith("balsim "):
                args = shlex.split(line, comments=True)[1:]
                found.append([a for a in args if a != "..."])
    return found


def definition(args: list[str]) -> click.Command:
    assert args, "a bare `balsim`"
    command = cli.commands.get(args[0])
    assert command is not None, f"`balsim {args[0]}` is no command"
    return command


def parse(args: list[str]) -> None:
    """Parse ``args`` as click would; an input path that no earlier command wrote is fine."""
    command = definition(args)
    try:
        command.make_context(args[0], args[1:])
    except click.BadParameter as e:
        wants_file = isinstance(e.param and e.param.type, click.Path) and e.param.type.exists
        if not (wants_file and "does not exist" in e.format_message()):
            raise AssertionError(f"`balsim {shlex.join(args)}`: {e.format_message()}") from e
    except click.UsageError as e:
        raise AssertionError(f"`balsim {shlex.join(args)}`: {e.format_message()}") from e


def option(command: click.Command, name: str) -> click.Option | None:
    return next((p for p in command.params if name in getattr(p, "opts", ())), None)


def with_value(args: list[str], param: click.Option, value: str) -> list[str]:
    """``args`` with ``param`` set to ``value``, replacing the value the page gave."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in param.opts or a in param.secondary_opts:
            skip = True
        elif any(a.startswith(f"{o}=") for o in param.opts if o.startswith("--")):
            continue
        else:
            out.append(a)
    return [*out, param.opts[0], value]


def small(args: list[str]) -> list[str]:
    """The command as played here: few games, one process, no progress bar, and allowed to
    replace what an earlier example of the page wrote to the same default folder."""
    command = definition(args)
    if PLAYED[args[0]] is not None:
        name, value = PLAYED[args[0]]
        args = with_value(args, option(command, name), value)
    if (jobs := option(command, "--jobs")) is not None:
        args = with_value(args, jobs, "1")
    for flag in ("--quiet", "--force"):
        param = option(command, flag)
        if param is not None and not set(param.opts) & set(args):
            args = [*args, param.opts[0]]
    return args


def played(args: list[str]) -> bool:
    players = " ".join(
        v for flag, v in zip(args, args[1:]) if flag in ("--field", "--seats", "--policy")
    )
    costly = COSTLY_PLAYERS.search(players) or COSTLY_OPTIONS.keys() & set(args)
    return args[0] in PLAYED and not costly


def test_every_command_is_played_or_parsed_with_a_reason():
    assert not PLAYED.keys() & PARSED_ONLY.keys()
    assert set(cli.commands) == PLAYED.keys() | PARSED_ONLY.keys()


@pytest.mark.parametrize("page", PAGES)
def test_links_resolve(page):
    for target in LINK.findall(text(page)):
        if "://" not in target and not target.startswith("mailto:"):
            assert (ROOT / page).parent.joinpath(target).exists(), f"{page}: link {target}"


@pytest.mark.parametrize("page", [p for p in PAGES if commands(p)])
@pytest.mark.slow
def test_documented_commands_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in commands(page):
        parse(args)
        if played(args):
            args = small(args)
            result = CliRunner().invoke(cli, args)
            assert result.exit_code == 0, (
                f"{page}: `balsim {shlex.join(args)}` exited {result.exit_code}: "
                f"{result.output[-2000:]}{result.exception!r}"
            )
            out = option(definition(args), "--out")
            target = out and next((v for f, v in zip(args, args[1:]) if f in out.opts), None)
            assert target is None or Path(target).exists(), f"{page}: {target} not written"
    for path in PATH.findall(text(page)):
        path = path.rstrip(".,/")
        parts = Path(path).parts
        if len(parts) > 2 and (tmp_path / parts[0] / parts[1]).is_dir():
            assert any(tmp_path.glob(path)), f"{page}: documented {path} not written"
    for source in blocks(page, {"python"}):
        reads = re.findall(r"[\"']((?:runs|reports)/[^\"']+)[\"']", source)
        if reads and all(any(tmp_path.glob(r)) for r in reads):
            exec(compile(source, f"{page} (python block)", "exec"), {})


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, {"python"})])
def test_python_blocks_import_what_exists(page):
    for source in blocks(page, {"python"}):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module.startswith("simulator"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    assert hasattr(module, alias.name), f"{page}: {node.module}.{alias.name}"


def test_the_module_map_lists_every_module():
    """docs/architecture.md maps the modules; a game added after the first three maps its
    own on its page (docs/games/GAME.md), so adding it edits no shared page."""
    listed = set()
    for page in ["docs/architecture.md", *(p for p in PAGES if p.startswith("docs/games/"))]:
        for folder, rows in re.findall(
            r"^### `([\w/]+)/`\n\n(.*?)(?=^##|\Z)", text(page), re.M | re.S
        ):
            listed |= {f"{folder}/{m}" for m in re.findall(r"^\| `([\w/]+\.py)` \|", rows, re.M)}
    modules = {
        p.relative_to(ROOT).as_posix()
        for p in [*(ROOT / "simulator").rglob("*.py"), *(ROOT / "policies").rglob("*.py")]
    }
    modules.discard("simulator/__init__.py")
    assert modules - listed == set(), "modules missing from docs/architecture.md"
    assert listed - modules == set(), "docs/architecture.md lists modules that do not exist"


def documented_columns(page: str) -> re.Pattern:
    """Every column name a game page shows in backticks, ``{c}`` standing for an index and
    ``{a,b}`` for each of its words."""
    names = []
    for code in re.findall(r"`([a-z_{},0-9]+)`", text(page)):
        pattern = re.escape(code).replace(r"\{c\}", r"\d+")
        pattern = re.sub(r"\\\{([a-z_,]+)\\\}", lambda m: f"({m[1].replace(',', '|')})", pattern)
        names.append(pattern)
    return re.compile("|".join(names))


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_game_page_names_every_column_and_counts_every_assumed_value(game, tmp_path):
    from simulator.analysis import Dataset
    from simulator.core.assumed import assumed_keys

    page = f"docs/games/{game}.md"
    result = CliRunner().invoke(
        cli, ["run", game, "-n", "8", "-j", "1", "-q", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    shared = documented_columns("docs/datasets.md")
    own = documented_columns(page)
    ds = Dataset(tmp_path)
    for table in ("games", "players", *ds.timelines):
        for column in ds.columns(table):
            assert own.fullmatch(column) or shared.fullmatch(column), f"{page}: {table}.{column}"
    keys = assumed_keys(ROOT / f"simulator/games/{game}/rules.toml")
    assert f"**{len(keys)} ASSUMED values**" in text(page)
    for key in keys.values():
        if "[" not in key.label:
            assert f"`{key.label}`" in text(page), f"{page}: {key.label}"


@pytest.mark.slow
def test_the_assumed_page_counts_what_the_screens_vary():
    """docs/assumed.md's table: each game's ASSUMED values, and how many of them the study's
    screen at 4 players varies."""
    from simulator.core.assumed import assumed_keys
    from simulator.core.game import get_game
    from simulator.experiments.screening import plan_screen
    from simulator.studies.study import SCREEN_PLAYERS

    rows = re.findall(r"^\| (\w+) \| (\d+) \| (\d+) \|", text("docs/assumed.md"), re.M)
    shown = {}
    for title, values, screened in rows:  # the first table, of the values and the screens
        shown.setdefault(title, (int(values), int(screened)))
    for name, title in (("ekonos", "Ekonos"), ("karnaxis", "Karnaxis"), ("karmaggan", "Karmaggän")):
        game = get_game(name)
        spans = game.study.screen_spans
        plan = plan_screen(game, game.default_rules(), [], True, (0.5, 1.5), SCREEN_PLAYERS, spans)
        assert shown[title] == (len(assumed_keys(game.rules_path)), len(set(plan.keys))), title
