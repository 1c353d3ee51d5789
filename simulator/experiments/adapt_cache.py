"""The adapted field as data: an adaptation's record, where records are kept (the package's
shipped file, the user's cache), how a record is checked before it is played, and which
adapted variant a new adaptation starts from.

A record is keyed by :func:`cache_key`: the game, its engine version, a digest of the rules,
the player count, the budget, the seed, the algorithm and the replicate.  The package ships
the records of every variant the four ``ask`` questions and the default study play
(``simulator/games/GAME/adapted.json``, written by ``balsim adapt GAME --ship``); the others
are cached in ``$BALSIM_CACHE_DIR/adapted`` (default ``~/.cache/balsim``, beside the compiled
engines), one file per record, written atomically.  Either is used only while its key
matches, and only once checked like any input (:func:`problem`): knob sets of the right
policies and knobs, finite numbers within each knob's range; a record that is not right is
said once and adapted again.

*Nearest* (:func:`nearest`): an adaptation of other rules of the same game, engine, player
count, budget, seed, algorithm and replicate, whose rules have the same keys (the same
entries added to or removed from the printed rules), at the smallest distance: the sum over
the rules values that differ of ``|a - b| / max(|a|, |b|)`` (1 for a value that is not a
number), ties to the smaller digest.  Each record keeps, as ``changed``, the values of its
rules that differ from the printed ones, which is what the distance is measured on.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from simulator.core.errors import UserError
from simulator.core.game import Game
from simulator.experiments.tune import RANGES, knob_range, rounded
from simulator.run.workers import notice

FORMAT = 2
ALGORITHM = 1  # bump when the adaptation changes: cached knob sets are then played again
NOT_KNOBS = ("base", "description")


@dataclass
class Adaptation:
    """The adapted knob sets of one rules variant (one replicate), how they were reached and
    what it cost."""

    key: dict  # what the result depends on (cache_key)
    knob_sets: dict  # P_adapted -> its [policies.P_adapted] table
    start: dict  # P_adapted -> the knobs it started from (the tuned set's)
    rounds: list = field(default_factory=list)  # per round: one record per policy tuned
    games: int = 0  # played by the adaptation
    seconds: float = 0.0  # its share of the wall-clock seconds of the run that played it
    changed: dict = field(default_factory=dict)  # rules values unlike the printed ones
    warm_start: dict | None = None  # {"rules_digest", "distance"}: the adaptation it began at
    source: str = "played"  # "played", "cache" or "shipped"

    @property
    def replicate(self) -> int:
        return self.key["replicate"]

    @property
    def moved(self) -> dict:
        """P_adapted -> {knob: (start, adapted)} for the knobs that changed."""
        out = {}
        for name, table in self.knob_sets.items():
            changed = {
                k: (self.start[name][k], v)
                for k, v in table.items()
                if k not in NOT_KNOBS and v != self.start[name].get(k)
            }
            if changed:
                out[name] = changed
        return out

    def record(self) -> dict:
        out = asdict(self)
        out.pop("source")
        return {"format": FORMAT, **out}

    @classmethod
    def from_record(cls, record: dict, source: str) -> Adaptation:
        names = ("key", "knob_sets", "start", "rounds", "games", "seconds", "changed")
        return cls(**{k: record[k] for k in names}, warm_start=record["warm_start"], source=source)

    def lines(self) -> list[str]:
        """How the knobs moved, one line per knob, and each round's gains."""
        out = []
        if self.warm_start:
            out.append(
                f"  started from the adaptation of rules {self.warm_start['rules_digest']} "
                f"(distance {self.warm_start['distance']:.3g})"
            )
        for r, round_ in enumerate(self.rounds, 1):
            gains = ", ".join(
                f"{t['policy']} {100 * t['gain']['value']:+.1f} "
                f"({100 * t['gain']['low']:+.1f} to {100 * t['gain']['high']:+.1f})"
                + (" taken" if t["accepted"] else "")
                for t in round_
            )
            out.append(f"  round {r}: win-rate gain in points (95% CI): {gains}")
        for name, knobs in self.moved.items():
            out += [f"  {name:<28} {k:<20} {a:>12g} -> {b:>12g}" for k, (a, b) in knobs.items()]
        if not self.moved:
            out.append("  no knob moved: no re-tuned set won significantly more than the tuned one")
        return out


# ---- keys -----------------------------------------------------------------------------------


def rules_digest(rules: dict) -> str:
    """A digest of the rules as data (every key, knob sets included)."""
    text = json.dumps(rules, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def cache_key(
    game: Game, rules: dict, n_players: int, budget, seed: int, replicate: int = 0
) -> dict:
    return {
        "game": game.name,
        "engine_version": game.engine_version,
        "rules_digest": rules_digest(rules),
        "n_players": n_players,
        "budget_games": budget.games,
        "rounds": budget.rounds,
        "seed": seed,
        "algorithm": ALGORITHM,
        "replicate": replicate,
    }


def key_digest(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]


# ---- checking a record ----------------------------------------------------------------------


def problem(record, key: dict, sets: dict, rules: dict) -> str | None:
    """Why ``record`` is not a right adaptation for ``key`` under ``rules`` (whose starting
    knob sets are ``sets``), or None: its format and key, then every knob set of the field
    with its base and its knobs, each a finite number within the knob's ``[knob_ranges]``
    (a whole number where the range is), and the bookkeeping around them."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return "not a record of this balsim"
    if record.get("key") != key:
        return "its key is another adaptation's"
    knob_sets = record.get("knob_sets")
    if not isinstance(knob_sets, dict) or set(knob_sets) != set(sets):
        return f"its knob sets are not those of {', '.join(sets)}"
    for name, start in sets.items():
        table = knob_sets[name]
        if not isinstance(table, dict) or table.get("base") != start["base"]:
            return f"{name} does not play {start['base']}"
        if not isinstance(table.get("description"), str):
            return f"{name} has no description"
        knobs = {k: v for k, v in table.items() if k not in NOT_KNOBS}
        if set(knobs) != {k for k in start if k not in NOT_KNOBS}:
            return f"{name} has other knobs than {start['base']}'s"
        for knob, value in knobs.items():
            why = knob_problem(rules, knob, value, start[knob])
            if why:
                return f"{name}.{knob} {why}"
    starts = record.get("start")
    if not isinstance(starts, dict) or set(starts) != set(sets):
        return "its starting knobs are not the field's"
    if not all(isinstance(s, dict) and all(finite(v) for v in s.values()) for s in starts.values()):
        return "its starting knobs are not finite numbers"
    games, seconds = record.get("games"), record.get("seconds")
    if type(games) is not int or games < 0 or not finite(seconds) or seconds < 0:
        return "its games or seconds are not counts"
    if not isinstance(record.get("rounds"), list):
        return "its rounds are not a list"
    if not isinstance(record.get("changed"), dict):
        return "its rules values are not a table"
    if not isinstance(record.get("warm_start", ""), (dict, type(None))):
        return "its warm start is not a record"
    return None


def finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def knob_problem(rules: dict, knob: str, value, start: float) -> str | None:
    """Why ``value`` cannot be the knob's (not a finite number, outside its range), or None."""
    if not finite(value):
        return f"is {value!r}, not a finite number"
    if knob not in rules.get(RANGES, {}):
        return None  # searched around each round's start: any finite number can be reached
    low, high, integer = knob_range(rules, knob, start)
    if not rounded(low) <= value <= rounded(high):
        return f"is {value:g}, outside its range [{low:g}, {high:g}]"
    if integer and not float(value).is_integer():
        return f"is {value:g}, not a whole number"
    return None


# ---- where records are kept -----------------------------------------------------------------


def cache_root() -> Path:
    """``$BALSIM_CACHE_DIR``, else the user's balsim cache folder."""
    return Path(
        os.environ.get("BALSIM_CACHE_DIR")
        or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "balsim"
        )
    )


def cache_dir() -> Path:
    """``adapted`` in the cache folder (:func:`cache_root`)."""
    return cache_root() / "adapted"


def cache_path(key: dict) -> Path:
    return cache_dir() / key["game"] / f"{key['n_players']}p-{key_digest(key)}.json"


def shipped_path(game: Game) -> Path:
    return game.rules_path.parent / "adapted.json"


def usable_cache(game: Game) -> None:
    """Refuse, in one line naming it, an adaptation cache folder that cannot be written (a
    file in its place, no permission), before any game is played for it."""
    folder = cache_dir() / game.name
    probe = folder / f".write-test-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise UserError(
            f"cannot keep adapted fields in {folder} ({e.strerror or e}): set BALSIM_CACHE_DIR "
            "to a folder balsim may write"
        ) from None


def write_entry(path: Path, adaptation: Adaptation) -> None:
    write_record(path, adaptation.record())


def write_record(path: Path, record: dict) -> None:
    """Write a record through a temporary file (never half-written, and two processes writing
    the same entry leave one whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


SHIPPED: dict[Path, dict[str, dict]] = {}  # shipped file -> {key digest: record}, read once
SAID: set[str] = set()  # records said not right, once each


def shipped_records(game: Game) -> dict[str, dict]:
    return records_in(shipped_path(game))


def records_in(path: Path) -> dict[str, dict]:
    """A shipped file's records by key digest (none when it is missing or damaged)."""
    if path not in SHIPPED:
        try:
            entries = json.loads(path.read_text(encoding="utf-8")).get("entries", [])
        except (OSError, ValueError, AttributeError):
            entries = []
        SHIPPED[path] = {
            key_digest(r["key"]): r for r in entries if isinstance(r, dict) and "key" in r
        }
    return SHIPPED[path]


def write_shipped(game: Game, records: list[dict]) -> Path:
    """The package's file of shipped adaptations."""
    return write_records(shipped_path(game), records, FORMAT)


def write_records(path: Path, records: list[dict], version: int) -> Path:
    """A file of shipped records (format ``version``): one record a line, in key order, so a
    new entry changes one line of the package."""
    records = sorted(records, key=lambda r: key_digest(r["key"]))
    lines = ",\n".join(json.dumps(r, sort_keys=True, separators=(",", ":")) for r in records)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(f'{{"format": {version}, "entries": [\n{lines}\n]}}\n', encoding="utf-8")
    os.replace(tmp, path)
    SHIPPED.pop(path, None)
    return path


def cached_record(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # missing, unreadable, damaged: adapted again
        return None


def checked(record, key: dict, sets: dict, rules: dict, source: str, where) -> Adaptation | None:
    """The record as an Adaptation when it is right, else None, saying once why not."""
    if record is None:
        return None
    why = problem(record, key, sets, rules)
    if why is None:
        return Adaptation.from_record(record, source)
    if str(where) not in SAID:
        SAID.add(str(where))
        notice(f"balsim: the adapted field in {where} is not right ({why}); adapting again")
    return None


def lookup(
    game: Game, key: dict, sets: dict, rules: dict, sources=("shipped", "cache")
) -> Adaptation | None:
    """The shipped or cached adaptation for ``key``, if there is a right one."""
    if "shipped" in sources:
        record = shipped_records(game).get(key_digest(key))
        found = checked(record, key, sets, rules, "shipped", shipped_path(game))
        if found:
            return found
    if "cache" in sources:
        path = cache_path(key)
        return checked(cached_record(path), key, sets, rules, "cache", path)
    return None


# ---- the nearest adapted variant ------------------------------------------------------------


def flat(value, prefix: str = "") -> dict:
    """{path: leaf} of nested rules: ``a.b`` for tables, ``a[3]`` for arrays."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            out.update(flat(v, f"{prefix}[{i}]"))
        return out
    return {prefix: value}


def changed_values(printed: dict, rules: dict) -> dict:
    """The rules values unlike the printed ones: {path: value}, None for a path removed."""
    before, after = flat(printed), flat(rules)
    out = {p: v for p, v in after.items() if p not in before or before[p] != v}
    out.update({p: None for p in before if p not in after})
    return out


def shape(changed: dict, printed_paths) -> frozenset:
    """The paths added to or removed from the printed rules: rules of the same keys share it."""
    return frozenset(p for p, v in changed.items() if v is None or p not in printed_paths)


def difference(a, b) -> float:
    """``|a - b| / max(|a|, |b|)`` of two numbers, else 0 when equal and 1 when not."""
    if finite(a) and finite(b):
        scale = max(abs(a), abs(b))
        return abs(a - b) / scale if scale else 0.0
    return 0.0 if a == b else 1.0


def distance(mine: dict, theirs: dict, printed: dict) -> float:
    """The normalised distance between two rules given as their changed values."""
    return sum(
        difference(mine.get(p, printed.get(p)), theirs.get(p, printed.get(p)))
        for p in set(mine) | set(theirs)
    )


def records_like(game: Game, key: dict) -> list[tuple[dict, str]]:
    """(record, source) of every shipped and cached record whose key is ``key`` but for the
    rules."""
    same = {k: v for k, v in key.items() if k != "rules_digest"}
    out = [(r, "shipped") for r in shipped_records(game).values()]
    folder = cache_dir() / game.name
    try:
        paths = sorted(folder.glob(f"{key['n_players']}p-*.json")) if folder.is_dir() else []
    except OSError:
        paths = []
    out += [(cached_record(p), "cache") for p in paths]
    return [
        (r, source)
        for r, source in out
        if isinstance(r, dict)
        and isinstance(r.get("key"), dict)
        and {k: v for k, v in r["key"].items() if k != "rules_digest"} == same
        and r["key"].get("rules_digest") != key["rules_digest"]
    ]


def nearest(
    game: Game, key: dict, changed: dict, printed_flat: dict, sets: dict, rules: dict
) -> tuple[Adaptation, float] | None:
    """The nearest adapted variant to rules whose changed values are ``changed`` (see the
    module's docstring), and its distance; None when no record has the same keys."""
    mine = shape(changed, printed_flat)
    best = None
    for record, source in records_like(game, key):
        theirs = record.get("changed")
        if not isinstance(theirs, dict) or shape(theirs, printed_flat) != mine:
            continue
        if problem(record, record["key"], sets, rules):
            continue  # not a start for these rules (its own may be right: it stays)
        found = Adaptation.from_record(record, source)
        d = distance(changed, theirs, printed_flat)
        if best is None or (d, found.key["rules_digest"]) < (best[1], best[0].key["rules_digest"]):
            best = (found, d)
    return best
