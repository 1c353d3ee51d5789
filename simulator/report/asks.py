"""The first screen: the designer's questions as ``balsim ask`` answers them.

A folder ``balsim ask`` wrote (the study writes one per question, ``runs/answer-QUESTION``)
given to the report puts that answer on its first screen: the decision, the worst edge at
each strength with its interval, and what to do next — the very three lines ``ask`` prints,
from its ``balsim.json``, so the page and the command never answer one question twice — with
the players it rests on and a link to the answer's own page (every value, fact and chart).
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path

from simulator.run.outputs import OUT_MARK

ASK_TOOL = "ask"


def ask_record(folder: Path) -> dict | None:
    """The answer ``balsim ask`` wrote into ``folder``, or None when it holds none."""
    try:
        record = json.loads((Path(folder) / OUT_MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("tool") == ASK_TOOL else None


def split_asks(dirs: list[Path]) -> tuple[list[Path], list[Path]]:
    """(other folders, ask folders) of the folders given to the report."""
    asks = [Path(d) for d in dirs if ask_record(Path(d)) is not None]
    return [Path(d) for d in dirs if Path(d) not in asks], asks


def answer_item(folder: Path, record: dict, page: Path) -> str:
    """One question's answer: its three lines, who played and the link to its page."""
    decision, numbers, next_step = (record["answer"] + ["", "", ""])[:3]
    link = os.path.relpath(folder.resolve() / "report.html", page.resolve().parent)
    fields = ", ".join(record.get("fields", []))
    return (
        f"<li><b>{html.escape(record['question'])}</b> ({html.escape(record['game'])}, "
        f"{record['players']} players; {html.escape(fields)} fields, up to "
        f"{record['budget']:,} games per value): {html.escape(decision)}"
        f"<div class='numbers'>{html.escape(numbers)} {html.escape(next_step)} "
        f"<a href='{html.escape(link)}'>→ the whole answer</a></div></li>"
    )


def asks_html(folders: list[Path], page: Path) -> str:
    """The answers box of ``folders`` (each a ``balsim ask`` folder), linked from ``page``."""
    items = [answer_item(f, ask_record(f), page) for f in folders]
    if not items:
        return ""
    exploit = all(ask_record(f).get("exploitability") for f in folders)
    note = (
        ""
        if exploit
        else "<p class='note'>What a better strategy gains against each decision is measured by "
        "<code>balsim ask QUESTION</code>, not here.</p>"
    )
    return "<div class='answers'><h2>Answers</h2><ul>" + "".join(items) + f"</ul>{note}</div>"
