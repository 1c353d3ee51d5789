"""The metagame: each game's head-to-head win-rate matrix, from ``balsim matrix`` folders.

Cell (row, column) is the win rate of the row agent in one seat (its team in team mode)
against a field of the column agent, every cell on the same games; the section shows the heat
map, the dominant and dominated agents and the equilibrium mixture
(:mod:`simulator.experiments.matrix`).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from simulator.experiments.matrix import read_matrix, summary_lines
from simulator.report.charts import exporting, inline_svg
from simulator.report.page import pct
from simulator.report.tool_charts import matrix_chart


def split_matrix(dirs: list[Path]) -> tuple[list[Path], list[Path]]:
    """(other folders, matrix folders) of the folders given to the report."""
    matrices = [Path(d) for d in dirs if read_matrix(Path(d)) is not None]
    return [Path(d) for d in dirs if Path(d) not in matrices], matrices


def matrix_html(folder: Path) -> str:
    """One game's matrix: its findings, the heat map and how to reproduce it."""
    record = read_matrix(folder)
    with exporting(None, f"metagame-{record['game']}-{record['n_players']}p"):
        chart = inline_svg(matrix_chart(record), "win-rate matrix")
    agents = ", ".join(f"{a['name']} ({a['field']})" for a in record["agents"])
    findings = "".join(f"<li>{escape(line)}</li>" for line in summary_lines(record))
    return (
        f"<h3>{escape(record['game'])}, {record['n_players']} players</h3>"
        f"<ul>{findings}</ul>"
        f"<p>Agents (field they come from): {escape(agents)}; "
        f"{record['cells'][0]['games']:,} games per cell, fair share "
        f"{pct(record['fair_share'])}. Reproduce: <code>{escape(record['command'])}</code></p>"
        f"<figure class='full'>{chart}</figure>"
    )


def matrix_section(folders: list[Path]) -> str:
    """The report's "Metagame" section: per matrix folder, its heat map and findings."""
    if not folders:
        return ""
    return (
        "<section class='metagame' id='metagame'><h2>Metagame</h2><p>The win rate of each "
        "agent (row) in one seat, or its team in team mode, against a field of another agent "
        "(column) in every other seat (<code>balsim matrix</code>), every cell on the same "
        "games. An agent is dominant when it wins significantly more than every other "
        "against every field; the equilibrium is the optimal mixture of the zero-sum form "
        "(row's rate entering the column's field minus the column's entering the row's)."
        "</p>" + "".join(matrix_html(f) for f in folders) + "</section>"
    )
