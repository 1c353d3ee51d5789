"""The study's report in a real browser: headless Chromium at 1,400 x 900 pixels.

A copy of the report gets a script that measures the laid-out page and writes the numbers
into the DOM, which Chromium dumps; the report itself has no script.  Chromium also
screenshots the first screen and a game's section.  ``make test`` installs Debian's
``chromium`` when it is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

# end to end: `make test` runs these, `make test-fast` does not (pyproject.toml)
pytestmark = pytest.mark.slow

WIDTH, HEIGHT = 1400, 900
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    f"--window-size={WIDTH},{HEIGHT}",
]
QUESTIONS = ("tax-brackets", "loans", "blood-coins", "scoring")  # as `balsim ask` names them

MEASURE = """<script>
(function () {
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const overflowing = [];
  for (const t of document.querySelectorAll('table')) {
    // a table in a box that scrolls is read by scrolling it: then the box must fit its column
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(t.parentElement).overflowX);
    const own = scrolls ? t.parentElement : t;
    const r = own.getBoundingClientRect(), box = own.parentElement.getBoundingClientRect();
    if (r.right > vw + 0.5 || r.right > box.right + 0.5) {
      const b = t.closest('.block');
      overflowing.push((b ? b.id : 'facts') + ': ' + Math.round(r.width) + ' px in '
                       + Math.round(box.width));
    }
  }
  const answers = [...document.querySelectorAll('.answers li')].map(li => ({
    text: li.textContent, bottom: li.getBoundingClientRect().bottom}));
  const flags = document.querySelectorAll('.flags > ol > li').length;
  // every picture drawn: an <img> decoded to pixels, an inline chart laid out within its box
  const broken = [...document.querySelectorAll('img')]
    .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt);
  const charts = [...document.querySelectorAll('svg.chart')];
  for (const c of charts) {
    const r = c.getBoundingClientRect(), box = c.closest('.pair, section, body')
      .getBoundingClientRect();
    if (!(r.width > 50 && r.height > 30) || r.right > box.right + 0.5 || r.right > vw + 0.5) {
      const b = c.closest('.block');
      broken.push((b ? b.id : 'chart') + ': ' + Math.round(r.width) + 'x' + Math.round(r.height));
    }
  }
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify({vw, vh, page_width: document.documentElement.scrollWidth,
                                    answers, flags, overflowing, broken,
                                    images: document.images.length, charts: charts.length});
  document.body.appendChild(pre);
})();
</script>"""


def chromium() -> str:
    path = shutil.which("chromium")
    assert path, "chromium is not installed: `make test` (or `make browser`) installs it"
    return path


def measure(report, tmp_path) -> dict:
    page = report.read_text(encoding="utf-8")
    probe = tmp_path / "measured.html"
    probe.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [
            chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    return json.loads(
        found.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    )


@pytest.fixture(scope="module")
def measured(small_study, tmp_path_factory) -> dict:
    return measure(small_study["report"], tmp_path_factory.mktemp("browser"))


def test_the_first_screen_answers_the_four_questions_as_ask_does(measured, small_study):
    """Each answer is the three lines `balsim ask` wrote for its question (the study asked
    it), on the first screen."""
    answers = measured["answers"]
    assert [a["text"].split(" ", 1)[0] for a in answers] == list(QUESTIONS)
    for a, question in zip(answers, QUESTIONS):
        record = json.loads(
            (small_study["dirs"][0].parent / f"answer-{question}" / "balsim.json").read_text()
        )
        for line in record["answer"]:
            assert " ".join(line.split()) in " ".join(a["text"].split()), line
        assert a["bottom"] <= measured["vh"], f"below the first screen: {a['text'][:60]}"
    # at 1% of its size no dataset of the study has the games a first-screen flag needs
    assert measured["flags"] == 0


def test_no_table_is_cut_off_at_1400_pixels(measured):
    assert measured["vw"] <= WIDTH
    assert measured["overflowing"] == []
    assert measured["page_width"] <= measured["vw"]


def test_a_table_wider_than_the_page_scrolls_in_its_box(tmp_path):
    """A chart's table of many wide columns, wider than any column of the page at 1,400
    pixels: it goes under its chart and scrolls in its own box, and the page keeps its width."""
    import polars as pl

    from simulator.report.charts import count_bars
    from simulator.report.page import block, render_page

    wide = pl.DataFrame(
        {"component": ["starting blood coins"], **{f"n{k}": [123_456_789_012] for k in range(14)}}
    )
    chart = count_bars([1, 2], [2, 1], "seat", "games", "Seat 1 wins most")
    page = tmp_path / "wide.html"
    page.write_text(render_page(["ekonos"], "m", "", "", "", [block("wide", "w", chart, wide)]))
    measured = measure(page, tmp_path)
    assert measured["overflowing"] == [] and measured["page_width"] <= measured["vw"]


def test_every_chart_and_image_is_drawn_within_the_page(measured):
    assert measured["charts"] > 100 and measured["images"] == 0  # every chart inline SVG
    assert measured["broken"] == []


def screenshot(report, path, tmp_path, section: str = "") -> None:
    """Chromium's picture of the report's first screen; with ``section`` (the id of a
    section's heading), of that section alone at the top of the page."""
    page = report.read_text(encoding="utf-8")
    if section:  # a screenshot shows the top of the page, whatever the URL's fragment
        only = f"<style>body > :not(section:has(> h2#{section})){{display:none}}</style>"
        page = page.replace("</head>", only + "</head>")
    probe = tmp_path / "shown.html"
    probe.write_text(page, encoding="utf-8")
    subprocess.run(
        [
            chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--hide-scrollbars",
            f"--screenshot={path}",
            probe.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )


@pytest.mark.parametrize("section", ["", "game-karnaxis"])
def test_screenshots_of_the_first_screen_and_a_game_section(small_study, tmp_path, section):
    """The picture a designer sees is the page drawn: the full width, text and charts in it
    (many colours, not a blank or a clipped frame), nothing running off the right edge."""
    from PIL import Image

    shot = tmp_path / "screen.png"
    screenshot(small_study["report"], shot, tmp_path, section)
    image = Image.open(shot).convert("RGB")
    assert image.size == (WIDTH, HEIGHT)
    colours = image.getcolors(maxcolors=WIDTH * HEIGHT)
    assert len(colours) > 50  # antialiased text at least
    ink = sum(n for n, c in colours if c != (255, 255, 255))
    assert 0.03 < ink / (WIDTH * HEIGHT) < 0.9
    right = image.crop((WIDTH - 20, 0, WIDTH, HEIGHT)).getcolors()
    assert right == [(20 * HEIGHT, (255, 255, 255))], "nothing runs off the right edge"
    if section:  # the section's chart is on screen, in the palette's blue
        blue = sum(n for n, c in colours if c == (0x00, 0x72, 0xB2))
        assert blue > 500
