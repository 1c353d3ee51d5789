"""Balance flags on one scale: each rule's threshold applied to its interval's end nearest no
effect, win-rate findings ranked by their effect in points ahead of the others."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import polars as pl

from simulator.core.game import get_game
from simulator.report.flag_list import footer
from simulator.report.flags import THRESHOLDS, Rules, merge_flags


def dataset(variants=("base",), game: str | None = None):
    """A dataset's face for the flag rules: of no balsim game (no ASSUMED keys to look up, no
    flags of its own), or of ``game`` at its printed rules (its own flags too)."""
    engine = get_game(game) if game else None
    rules = engine.default_rules() if engine else {}
    return SimpleNamespace(
        game=game or "test",
        engine=engine,
        n_players=4,
        n_games=4_000,
        path=Path("runs/test-4p"),
        label="test, 4 players",
        variants=[{"name": v, "rules": rules} for v in variants],
        rules=rules,
    )


def flags(res: dict, variants=("base",), game: str | None = None):
    return merge_flags(Rules(0, dataset(variants, game), res).flags())


def variant_change(diff: float, lo: float, hi: float) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "variant": ["flat"],
            "metric": ["win_rate"],
            "group": ["policy=tycoon"],
            "base_mean": [0.666],
            "variant_mean": [0.666 + diff],
            "mean_diff": [diff],
            "diff_lo": [lo],
            "diff_hi": [hi],
            "p_holm": [1e-9],
            "significant": [True],
        }
    )


def loans(rate: float, lo: float, hi: float, column: str = "delinquent") -> pl.DataFrame:
    return pl.DataFrame(
        {"policy": ["speculator"], "n": [4_000], column: [rate], f"{column}_lo": [lo]}
        | {f"{column}_hi": [hi]}
    )


def test_a_large_change_of_a_win_rate_outranks_a_rate_past_its_level():
    # the case: delinquency at 36.9% against a 25% threshold ranked above a variant
    # that moves tycoon from 66.6% to 37.7%
    found = flags(
        {
            "karnaxis_loans": loans(0.369, 0.355, 0.383),
            "paired_change": variant_change(-0.289, -0.31, -0.268),
        },
        variants=("base", "flat"),
        game="karnaxis",  # its loan flags
    )
    assert [f.kind for f in found] == ["variant", "delinquency_rate"]
    variant, late = found
    assert variant.on_win_rate and not late.on_win_rate
    assert abs(variant.effect_low - 0.268) < 1e-9  # points at the near end of the interval
    assert abs(late.effect_low - (0.355 - 0.25)) < 1e-9


def test_every_threshold_applies_to_the_interval_end_nearest_no_effect():
    # each point estimate is past its threshold, each near end short of it: no flag
    res = {
        "round_cap": pl.DataFrame(
            {"games": [2_000], "rate": [0.012], "rate_lo": [0.008], "rate_hi": [0.018]}
        ),
        "runaway_leader": pl.DataFrame(
            {
                "games": [2_000],
                "rate": [0.81],
                "rate_lo": [0.79],
                "rate_hi": [0.83],
                "fair_share": [0.25],
            }
        ),
        "karnaxis_loans": loans(0.52, 0.47, 0.57, "cap_binding"),
        "win_rate_policy": pl.DataFrame(
            {
                "policy": ["tycoon", "cash"],
                "n": [4_000, 4_000],
                "win_rate": [0.36, 0.14],
                "win_rate_lo": [0.34, 0.12],
                "win_rate_hi": [0.38, 0.16],
                "fair_share": [0.25, 0.25],
            }
        ),
    }
    assert flags(res, game="karnaxis") == []
    # the same findings with their near ends past the thresholds are flagged
    res["round_cap"] = res["round_cap"].with_columns(rate_lo=pl.lit(0.011))
    res["runaway_leader"] = res["runaway_leader"].with_columns(rate_lo=pl.lit(0.80))
    res["karnaxis_loans"] = loans(0.52, 0.505, 0.57, "cap_binding")
    res["win_rate_policy"] = res["win_rate_policy"].with_columns(
        win_rate_lo=pl.Series([0.355, 0.12]), win_rate_hi=pl.Series([0.38, 0.149])
    )
    kinds = [f.kind for f in flags(res, game="karnaxis")]
    assert kinds == ["runaway", "dominant policy", "weak policy", "loan_cap_binding", "round_cap"]


def test_a_search_seat_far_above_its_fair_share_is_skill_not_a_dominant_policy():
    """The strong field's search seat wins most (the skill section measures that); a tuned
    policy as far above its share beside it is flagged, and only it is challenged."""
    rates = pl.DataFrame(
        {
            "policy": ["search", "tycoon_tuned"],
            "n": [4_000, 4_000],
            "win_rate": [0.60, 0.40],
            "win_rate_lo": [0.58, 0.38],
            "win_rate_hi": [0.62, 0.42],
            "fair_share": [0.25, 0.25],
        }
    )
    assert [(f.kind, f.subject) for f in flags({"win_rate_policy": rates})] == [
        ("dominant policy", "tycoon_tuned")
    ]


def test_a_significant_change_within_its_threshold_is_no_flag():
    # Holm-significant, but the change's interval reaches within 2 points of none
    assert flags({"paired_change": variant_change(-0.03, -0.045, -0.015)}, ("base", "flat")) == []
    assert THRESHOLDS["variant"] == 0.02


def test_the_footer_says_how_flags_are_ranked_and_thresholded():
    text = footer()
    assert "one scale" in text and "nearest no effect" in text
    assert (
        "the same way for every rule" in text
        and "a rule variant moving a win rate by 2 points" in text
    )
    assert "_" not in text  # thresholds in words, not their names
