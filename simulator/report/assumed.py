"""``balsim assumed``: every ASSUMED value of a game, why it is assumed, the rule functions that
play by it and the findings of datasets that rest on it or depend on it.

A finding *rests on* a value when its subject is assumed data (a what-if: an invented card, an
invented rule; :func:`simulator.report.flags.is_what_if`) and *depends on* it when a
sensitivity screen of its game finds that moving the value moves the finding's number
(:mod:`simulator.report.screens`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from simulator.core.assumed import assumed_keys, assumed_under, rule_uses, value_at
from simulator.core.errors import UserError
from simulator.core.game import Game


@dataclass
class AssumedValue:
    key: str  # labelled: characters[Nadia].ability_value
    value: object  # under the rules given
    reason: str
    replaced: bool  # the rules given hold another value than the assumed one
    uses: list[str]  # "module.function: the rulebook section it cites"
    findings: list[str] = field(default_factory=list)


def assumed_values(
    game: Game, rules: dict, folders: list[Path] = (), prefixes: list[str] = ()
) -> list[AssumedValue]:
    """Every ASSUMED key of ``game`` (those under ``prefixes`` when given), in file order, with
    the findings of the dataset and screen ``folders`` of this game about it."""
    keys = assumed_keys(game.rules_path)
    chosen = assumed_under(keys, prefixes) if prefixes else list(keys.values())
    if prefixes and not chosen:
        raise UserError(f"no ASSUMED {game.name} value lies under {', '.join(prefixes)}")
    defaults = game.default_rules()
    found = findings(game, [Path(f) for f in folders])
    return [
        AssumedValue(
            item.label,
            value_at(rules, item.key),
            item.reason,
            value_at(rules, item.key) != value_at(defaults, item.key),
            [u.text() for u in rule_uses(game.rules_path.parent, item.key)],
            found.get(item.label, []),
        )
        for item in chosen
    ]


def findings(game: Game, folders: list[Path]) -> dict[str, list[str]]:
    """For each labelled key, the balance flags of the datasets among ``folders`` that rest on
    it (what-ifs) or that a screen among them finds depending on it."""
    labels = [k.label for k in assumed_keys(game.rules_path).values()]
    return findings_of(dataset_flags(game, folders), labels)


def dataset_flags(game: Game, folders: list[Path]) -> list:
    """The merged balance flags of the datasets of ``game`` among ``folders``, annotated by the
    sensitivity screens among them."""
    from simulator.analysis import Dataset, summarise
    from simulator.report.flags import Rules, merge_flags
    from simulator.report.screens import mark_flags, split_screens
    from simulator.report.skill import split_skill

    datasets, screens = split_screens(folders)
    datasets, skill = split_skill(datasets)
    if skill:
        raise UserError(
            f"{skill[0]} is a rated ladder (balsim skill): give datasets and sensitivity screens"
        )
    opened = [Dataset(d) for d in datasets]
    for ds in opened:
        if ds.game != game.name:
            raise UserError(f"{ds.path} holds {ds.game} games, not {game.name}")
    flags = [f for i, ds in enumerate(opened) for f in Rules(i, ds, summarise(ds)).flags()]
    mark_flags(flags, screens)
    return merge_flags(flags)


def findings_of(flags: list, labels: list[str]) -> dict[str, list[str]]:
    """Each labelled key's flags: those resting on it, and those depending on it or on the
    card it belongs to (a screen moves a card's numbers together)."""
    out: dict[str, list[str]] = {}
    for f in flags:
        for item in f.assumed:
            out.setdefault(item.label, []).append(f"{f.where}: {f.text} (a what-if: rests on it)")
        depends = dict(zip(f.sensitivity.keys, f.sensitivity.depends)) if f.sensitivity else {}
        for key, effect in depends.items():
            for label in (x for x in labels if x == key or x.startswith(key + ".")):
                out.setdefault(label, []).append(f"{f.where}: {f.text} (depends on {effect})")
    return out
