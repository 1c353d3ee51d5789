"""Each `balsim ask` page in a real browser (headless Chromium at 1,400 x 900): its first
screen holds the answer and its chart, and no two words of the chart overlap."""

from __future__ import annotations

import pytest
from test_report_browser import HEIGHT, WIDTH, measure

from simulator.experiments.field import SCRIPTED, TUNED, Field
from simulator.studies.recipes import RECIPES, ask

# end to end: `make test` runs these, `make test-fast` does not (pyproject.toml)
pytestmark = pytest.mark.slow

MEASURE_ASK = """<script>
(function () {
  const rect = e => { const r = e.getBoundingClientRect();
                      return [r.left, r.top, r.right, r.bottom]; };
  const chart = document.querySelector('#answer-chart svg');
  const words = [...chart.querySelectorAll('text')].filter(t => t.textContent.trim())
    .map(t => ({text: t.textContent, box: rect(t)}));
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify({vh: window.innerHeight, vw: window.innerWidth,
    answer: rect(document.querySelector('#answer')), chart: rect(chart), words});
  document.body.appendChild(pre);
})();
</script>"""


def overlapping(words: list[dict]) -> list[tuple[str, str]]:
    out = []
    for i, a in enumerate(words):
        for b in words[i + 1 :]:
            w = min(a["box"][2], b["box"][2]) - max(a["box"][0], b["box"][0])
            h = min(a["box"][3], b["box"][3]) - max(a["box"][1], b["box"][1])
            if w > 1 and h > 1:
                out.append((a["text"], b["text"]))
    return out


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_the_first_screen_holds_the_answer_and_its_chart(name, tmp_path, monkeypatch):
    monkeypatch.setenv("BALSIM_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / name
    fields = [Field(SCRIPTED), Field(TUNED)]
    ask(RECIPES[name], out, 48, 3, jobs=1, progress=False, exploit=False, fields=fields)
    import test_report_browser

    monkeypatch.setattr(test_report_browser, "MEASURE", MEASURE_ASK)
    m = measure(out / "report.html", tmp_path)
    assert (m["vw"], m["vh"]) == (WIDTH, HEIGHT) or m["vw"] <= WIDTH
    assert m["answer"][3] <= m["vh"], "the answer runs below the first screen"
    assert m["chart"][3] <= m["vh"], "the chart runs below the first screen"
    assert m["chart"][2] <= m["vw"]
    assert len(m["words"]) > 10 and overlapping(m["words"]) == []
