"""The rules whose adapted fields and learned players the package ships (``balsim adapt GAME
--ship``, ``make adapted``; ``balsim learn GAME --ship``, ``make learned``): every variant that
the four ``ask`` questions (and for the adapted field the default study) play, at the player
counts they play it, so that none of them waits for an adaptation or a fit."""

from __future__ import annotations

from simulator.core.game import Game
from simulator.experiments.adapt_cache import rules_digest


def shipped_rules(game: Game) -> dict[int, list[dict]]:
    """Player count -> the distinct rules the questions and the study play ``game`` under."""
    from simulator.studies.study import game_datasets, study_variants

    out = question_rules(game)
    swept = study_variants(game, game.study)
    for n, variants in game_datasets(game, swept):
        for v in variants:
            out.setdefault(n, {})[rules_digest(v.rules)] = v.rules
    return {n: list(rules.values()) for n, rules in sorted(out.items())}


def learned_rules(game: Game) -> dict[int, list[dict]]:
    """Player count -> the rules the learned player is shipped for: the printed rules at each
    count the study plays, and every variant of the questions about ``game``."""
    out = question_rules(game)
    for n in game.study.player_counts:
        if n in game.player_counts:
            out.setdefault(n, {})[rules_digest(game.rules())] = game.rules()
    return {n: list(rules.values()) for n, rules in sorted(out.items())}


def question_rules(game: Game) -> dict[int, dict[str, dict]]:
    """Player count -> {rules digest: rules} of every variant the questions about ``game`` play."""
    from simulator.studies.recipes import RECIPES

    out: dict[int, dict[str, dict]] = {}
    for recipe in RECIPES.values():
        if recipe.game == game.name:
            for v in recipe.variants(game, game.rules()):
                out.setdefault(recipe.players, {})[rules_digest(v.rules)] = v.rules
    return out
