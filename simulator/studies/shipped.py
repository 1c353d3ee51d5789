"""The rules whose adapted fields the package ships (``balsim adapt GAME --ship``, ``make
adapted``): every variant that the four ``ask`` questions and the default study play, at
the player counts they play it, so that none of them waits for an adaptation."""

from __future__ import annotations

from simulator.core.game import Game
from simulator.experiments.adapt_cache import rules_digest


def shipped_rules(game: Game) -> dict[int, list[dict]]:
    """Player count -> the distinct rules the questions and the study play ``game`` under."""
    from simulator.studies.recipes import RECIPES
    from simulator.studies.study import game_datasets, study_variants

    out: dict[int, dict[str, dict]] = {}
    for recipe in RECIPES.values():
        if recipe.game == game.name:
            for v in recipe.variants(game, game.rules()):
                out.setdefault(recipe.players, {})[rules_digest(v.rules)] = v.rules
    swept = study_variants(game, game.study)
    for n, variants in game_datasets(game, swept):
        for v in variants:
            out.setdefault(n, {})[rules_digest(v.rules)] = v.rules
    return {n: list(rules.values()) for n, rules in sorted(out.items())}
