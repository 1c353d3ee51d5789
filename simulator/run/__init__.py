"""Playing games: plans into Parquet datasets, worker processes, warm-up, bench, outputs."""
