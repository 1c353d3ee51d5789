"""Digests of the datasets of twelve fixed configurations: a refactor or a speed change must
leave every one unchanged.

    python bench/digests.py runs/digests.json              # play them, write the digests
    python bench/digests.py runs/after.json --compare runs/before.json

Each configuration is a small ``balsim run`` (scripted, tuned and search seats, every player
count family, a variant); its digest hashes every table's rows in game order, so two engines
that play the very same games give the same digest whatever the files' layout.  Columns named
with ``--ignore`` (e.g. a column one side adds) are left out of the hash.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl

CONFIGS = {
    "ekonos-3p": ["ekonos", "-p", "3", "-n", "3000"],
    "ekonos-4p": ["ekonos", "-p", "4", "-n", "3000"],
    "ekonos-6p-tuned": [
        "ekonos",
        "-p",
        "6",
        "-n",
        "2000",
        "--seats",
        "cash_hoarder_tuned,value_investor_tuned,market_builder_tuned,"
        "president_seeker_tuned,random,cash_hoarder",
    ],
    "ekonos-search": [
        "ekonos",
        "-p",
        "4",
        "-n",
        "8",
        "--seats",
        "search,cash_hoarder_tuned,cash_hoarder_tuned,cash_hoarder_tuned",
    ],
    "karnaxis-2p": ["karnaxis", "-p", "2", "-n", "2000"],
    "karnaxis-4p": ["karnaxis", "-p", "4", "-n", "2000", "--set", "loans.cap_usd=100000"],
    "karnaxis-6p-tuned": [
        "karnaxis",
        "-p",
        "6",
        "-n",
        "1000",
        "--seats",
        "scholar_tuned,tycoon_tuned,speculator_tuned,cautious_tuned,random,tycoon",
    ],
    "karnaxis-search": [
        "karnaxis",
        "-p",
        "4",
        "-n",
        "8",
        "--seats",
        "search,tycoon_tuned,scholar_tuned,speculator_tuned",
    ],
    "karmaggan-3p": ["karmaggan", "-p", "3", "-n", "1000"],
    "karmaggan-4p": ["karmaggan", "-p", "4", "-n", "1000", "--set", "setup.blood_coins_4_6=3"],
    "karmaggan-5p-ffa": ["karmaggan", "-p", "5", "-n", "600", "--set", 'game.mode="free_for_all"'],
    "karmaggan-search": [
        "karmaggan",
        "-p",
        "4",
        "-n",
        "6",
        "--seats",
        "search,rusher_tuned,search,rusher_tuned",
    ],
}


def table_digest(folder: Path, ignore: set[str]) -> str:
    frame = pl.read_parquet(folder / "*.parquet")
    keys = [c for c in ("variant", "game_id", "seat", "round", "year") if c in frame.columns]
    frame = frame.sort(keys).select(sorted(c for c in frame.columns if c not in ignore))
    digest = hashlib.sha1(",".join(frame.columns).encode())
    digest.update(frame.hash_rows(seed=1).to_numpy().tobytes())
    return digest.hexdigest()


def dataset_digests(folder: Path, ignore: set[str]) -> dict[str, str]:
    return {
        table.name: table_digest(table, ignore)
        for table in sorted(folder.iterdir())
        if table.is_dir() and any(table.glob("*.parquet"))
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON file of the digests")
    parser.add_argument("--compare", type=Path, help="digests to compare with")
    parser.add_argument(
        "--ignore",
        default="engine_version",
        help="comma list of columns left out (default: engine_version)",
    )
    parser.add_argument("--only", help="comma list of configurations")
    args = parser.parse_args()
    ignore = set(filter(None, args.ignore.split(",")))
    names = args.only.split(",") if args.only else list(CONFIGS)
    digests = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            out = Path(tmp) / name
            subprocess.run(
                [
                    str(Path(sys.executable).parent / "balsim"),
                    "run",
                    *CONFIGS[name],
                    "--seed",
                    "7",
                    "-q",
                    "-j",
                    "2",
                    "--out",
                    str(out),
                ],
                check=True,
            )
            digests[name] = dataset_digests(out, ignore)
            print(f"{name}: " + " ".join(f"{t}={d[:10]}" for t, d in digests[name].items()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(digests, indent=1) + "\n")
    if args.compare:
        before = json.loads(args.compare.read_text())
        differ = [n for n in names if before.get(n) != digests[n]]
        print("identical" if not differ else "DIFFERENT: " + ", ".join(differ))
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
