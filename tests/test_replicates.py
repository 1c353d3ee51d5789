"""A field that adapts plays each variant's replicates: game g by the knob sets of replicate
g mod R, with the same seed and replicate in every variant, its rows carrying ``replicate``,
the same dataset whatever the jobs, resumed or extended look by look (docs/ladder.md)."""

import json
import shutil

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.game import get_game
from simulator.experiments.adapt import REPLICATES
from simulator.experiments.keys import with_values
from simulator.run import store
from simulator.run.plan import Plan, Variant, manifest_for
from simulator.run.runner import execute

EKONOS = get_game("ekonos")
# a knob set seated in every game, given other knobs by each replicate: a hoarder that pays
# over value, one at value, one that waits for bargains (their games differ visibly)
HOARDER = "hoarder_r"
REPLICA_KNOBS = [{"buy_margin": m, "sell_margin": 1.0} for m in (-1.5, 0.0, 1.5)]
SEATS = [HOARDER, "value_investor", "market_builder", "president_seeker"]


def with_hoarder(rules: dict) -> dict:
    rules = dict(rules)
    rules["policies"] = {**rules["policies"], HOARDER: {"base": "cash_hoarder", "description": ""}}
    return rules


def replica_sets() -> list[dict]:
    return [{HOARDER: {"base": "cash_hoarder", "description": "", **k}} for k in REPLICA_KNOBS]


def replicated_plan(n_games: int = 90, chunk_size: int = 20) -> Plan:
    base = with_hoarder(EKONOS.rules())
    cash = with_values(base, {"scoring.per_mu": 2})
    return Plan(
        game="ekonos",
        n_games=n_games,
        n_players=4,
        seats=SEATS,
        seed=5,
        chunk_size=chunk_size,
        variants=[
            Variant("printed", base, {}, replica_sets()),
            Variant("cash_x2", cash, {}, replica_sets()),
        ],
    )


def tables(out) -> dict[str, pl.DataFrame]:
    return {
        name: pl.read_parquet(out / name).sort("variant", "game_id", maintain_order=True)
        for name in ("games", "players", "companies")
        if (out / name).is_dir()
    }


def test_game_g_is_played_by_the_knob_sets_of_replicate_g_mod_r(tmp_path):
    """Known answer: the rows of the games ≡ r (mod 3) are exactly those that a plain run of
    replicate r's rules plays for the same game ids (same seeds and seats)."""
    plan = replicated_plan()
    execute(plan, tmp_path / "mixed", jobs=1, progress=False)
    mixed = tables(tmp_path / "mixed")
    for name in ("games", "players"):
        frame = mixed[name]
        assert frame.schema["replicate"] == pl.Int8
        assert frame.columns[:3] == ["game_id", "variant", "replicate"]
        assert (frame["replicate"] == frame["game_id"] % 3).all()
    for r in range(3):
        alone = Plan(
            **{
                **plan.__dict__,
                "variants": [Variant(v.name, v.replicate_rules()[r]) for v in plan.variants],
            }
        )
        execute(alone, tmp_path / f"alone{r}", jobs=1, progress=False)
        for name, frame in tables(tmp_path / f"alone{r}").items():
            mine = frame.filter(pl.col("game_id") % 3 == r)
            theirs = mixed[name].filter(pl.col("game_id") % 3 == r)
            assert theirs.drop("replicate", strict=False).equals(mine), (name, r)
    # the replicates' knobs matter: the hoarder's scores differ between replicates
    players = mixed["players"].filter(pl.col("policy") == HOARDER)
    means = players.group_by("replicate").agg(pl.col("score").mean()).sort("replicate")
    assert means["score"].n_unique() == 3


def test_the_manifest_holds_each_replicates_knob_sets_and_a_reader_can_play_them(tmp_path):
    plan = replicated_plan(30, 10)
    execute(plan, tmp_path / "ds", jobs=1, progress=False)
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    for v in manifest["variants"]:
        assert v["replicates"] == replica_sets()
    # replay --from plays game 4 as the dataset did: with replicate 1's knobs
    games = pl.read_parquet(tmp_path / "ds" / "games").filter(pl.col("game_id") == 4)
    assert games["replicate"].to_list() == [1, 1]
    replayed = invoke("replay", "--from", tmp_path / "ds", "--game", 4, "--variant", "printed")
    knobs = "\n".join(f"{k} = {v}" for k, v in REPLICA_KNOBS[1].items())
    rules = tmp_path / "replicate1.toml"
    rules.write_text(f'[policies.{HOARDER}]\nbase = "cash_hoarder"\ndescription = ""\n{knobs}\n')
    alone = ["replay", "ekonos", "--seed", 5, "--game", 4, "--seats", ",".join(SEATS)]
    assert replayed.output == invoke(*alone, "--rules", rules).output
    # a plain dataset's variants record no replicates, and its rows no replicate column
    execute(plan_without_replicates(plan), tmp_path / "plain", jobs=1, progress=False)
    plain = json.loads((tmp_path / "plain" / "manifest.json").read_text())
    assert all("replicates" not in v for v in plain["variants"])
    assert "replicate" not in pl.read_parquet(tmp_path / "plain" / "games").columns


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def plan_without_replicates(plan: Plan) -> Plan:
    return Plan(**{**plan.__dict__, "variants": [Variant(v.name, v.rules) for v in plan.variants]})


def test_the_same_dataset_whatever_the_jobs_resumed_or_extended(tmp_path):
    plan = replicated_plan()
    execute(plan, tmp_path / "one", jobs=1, progress=False)
    execute(plan, tmp_path / "two", jobs=2, progress=False)
    one = tables(tmp_path / "one")
    for name, frame in tables(tmp_path / "two").items():
        assert frame.equals(one[name]), name
    # resumed: a task's parts lost, played again
    shutil.copytree(tmp_path / "one", tmp_path / "resumed")
    manifest = json.loads((tmp_path / "resumed" / "manifest.json").read_text())
    manifest["status"] = "running"
    store.write_manifest(tmp_path / "resumed", manifest)
    for name in manifest["tables"]:
        (tmp_path / "resumed" / name / store.part_name(3)).unlink()
    execute(None, tmp_path / "resumed", jobs=2, resume=True, progress=False)
    for name, frame in tables(tmp_path / "resumed").items():
        assert frame.equals(one[name]), name
    # extended as ask's looks extend: 40 games per variant, then the plan of 90 resumed
    small = Plan(**{**plan.__dict__, "n_games": 40})
    execute(small, tmp_path / "looks", jobs=2, progress=False)
    store.write_manifest(tmp_path / "looks", manifest_for(plan, EKONOS, "running"))
    execute(None, tmp_path / "looks", jobs=1, resume=True, progress=False)
    for name, frame in tables(tmp_path / "looks").items():
        assert frame.equals(one[name]), name


def test_verify_checks_each_games_replicate(tmp_path):
    execute(replicated_plan(30, 10), tmp_path / "ds", jobs=1, progress=False)
    assert CliRunner().invoke(cli, ["verify", str(tmp_path / "ds")]).exit_code == 0
    part = tmp_path / "ds" / "games" / store.part_name(2)
    table = pq.read_table(part)
    column = table.schema.get_field_index("replicate")
    edited = table.set_column(column, "replicate", pa.array(np.zeros(table.num_rows, np.int8)))
    pq.write_table(edited, part)  # the stamp in the schema's metadata is kept
    result = CliRunner().invoke(cli, ["verify", str(tmp_path / "ds")])
    assert result.exit_code != 0
    assert f"{part} holds games of other replicates than game id mod 3" in result.output


@pytest.fixture(scope="module")
def adapted_sweep(tmp_path_factory):
    """A small sweep by the adapted field, on one and on two processes (its adaptations
    played once, then read from the cache)."""
    base = tmp_path_factory.mktemp("adapted")
    env = {"BALSIM_CACHE_DIR": str(base / "cache")}
    out = {}
    for jobs in (1, 2):
        out[jobs] = base / f"j{jobs}"
        args = ["sweep", "ekonos", "--vary", "scoring.per_mu=3", "-n", "48", "-j", str(jobs)]
        args += ["--field", "adapted", "--adapt-budget", "13000", "-q", "--out", str(out[jobs])]
        result = CliRunner().invoke(cli, args, env=env)
        assert result.exit_code == 0, result.output
    return out


@pytest.mark.slow
def test_an_adapted_field_plays_every_replicate_the_same_whatever_the_jobs(adapted_sweep):
    one, two = tables(adapted_sweep[1]), tables(adapted_sweep[2])
    for name in one:
        assert one[name].equals(two[name]), name
    for name in ("games", "players"):
        assert (one[name]["replicate"] == one[name]["game_id"] % REPLICATES).all()
    manifest = json.loads((adapted_sweep[1] / "manifest.json").read_text())
    for v in manifest["variants"]:
        assert len(v["replicates"]) == REPLICATES
        assert set(v["replicates"][0]) == {p + "_adapted" for p in EKONOS.scripted_policies}
        # the rules carry replicate 0's knob sets, so a reader of the rules sees a played field
        assert all(v["rules"]["policies"][n] == t for n, t in v["replicates"][0].items())
