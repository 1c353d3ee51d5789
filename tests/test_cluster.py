"""The dask backend: a real LocalCluster on loopback gives the dataset a local run gives."""

import polars as pl
from conftest import small_plan
from distributed import LocalCluster

from simulator.run.runner import execute


def test_dask_cluster_dataset_equals_local_run(small_datasets, tmp_path):
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        manifest = execute(
            small_plan("ekonos"),
            tmp_path / "dask",
            backend="dask",
            scheduler=cluster.scheduler_address,
            progress=False,
        )
    assert manifest["status"] == "complete"
    for table in ("games", "players"):
        local = pl.read_parquet(small_datasets["ekonos"] / table).sort("game_id")
        remote = pl.read_parquet(tmp_path / "dask" / table).sort("game_id")
        if table == "players":
            local, remote = local.sort("game_id", "seat"), remote.sort("game_id", "seat")
        assert remote.equals(local), table
