"""The ``assumed`` command: what a game's rules data invents, and a file to replace it with."""

from __future__ import annotations

from pathlib import Path

import click

from simulator.cli.group import cli
from simulator.cli.options import game_argument, load, rules_options
from simulator.core.rules import toml_value

# how a template balsim wrote begins (simulator.core.assumed.TEMPLATE_HEAD): --force replaces
# one, never another file
TEMPLATE_MARK = b"rules that the rulebook does not print (marked ASSUMED"


@cli.command()
@game_argument
@click.option(
    "--dataset",
    "folders",
    multiple=True,
    type=click.Path(file_okay=False, exists=True),
    help="A dataset or sensitivity screen of GAME: list the findings that rest on or depend "
    "on each value. Repeatable.",
)
@click.option(
    "--key",
    "prefixes",
    multiple=True,
    metavar="PREFIX",
    help="Only the values under this key, e.g. characters[Nadia] or loans. Repeatable.",
)
@click.option(
    "--template",
    type=click.Path(dir_okay=False),
    help="Write every ASSUMED value as TOML, each with its reason, to fill with the real "
    "cards and pass to --rules.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace a --template file that balsim wrote (never another file).",
)
@rules_options
def assumed(game, folders, prefixes, template, force, rules_files, sets):
    """Every value of GAME's rules that the rulebook does not print (marked ASSUMED in its
    rules.toml): its value, why it is assumed, the rule functions that play by it and, with
    --dataset, the findings that rest on it (what-ifs) or that a screen finds depending on it.

    \b
    Replace the invented cards with the real ones first:
      balsim assumed karnaxis --template my-cards.toml     # edit the values, then
      balsim run karnaxis --rules my-cards.toml ...
    \b
    Examples:
      balsim assumed karnaxis --key characters[Nadia]
      balsim assumed karnaxis --dataset runs/karnaxis-4p --dataset runs/sens-karnaxis
    """
    from simulator.core.assumed import template as template_text
    from simulator.report.assumed import assumed_values
    from simulator.run.outputs import check_out_file
    from simulator.run.store import write_atomic

    g, rules = load(game, rules_files, sets)
    if template:
        check_out_file(Path(template), force, "--template", TEMPLATE_MARK)
        text = template_text(g.rules_path, rules, g.name)
        write_atomic(Path(template), text)
        count = sum(1 for line in text.splitlines() if line and line[0] not in "#[")
        click.echo(
            f"wrote {template}: {count} ASSUMED values of {g.name}; fill in the real "
            f"ones and pass it to --rules"
        )
        return
    values = assumed_values(g, rules, list(folders), list(prefixes))
    replaced = sum(v.replaced for v in values)
    click.echo(
        f"{g.name}: {len(values)} ASSUMED values ({g.rules_path.name}), {replaced} replaced by "
        f"the rules given. To enter the real ones: balsim assumed {g.name} --template FILE, "
        f"edit FILE, then --rules FILE."
    )
    for v in values:
        click.echo(f"\n{v.key} = {toml_value(v.value)}" + ("  (replaced)" if v.replaced else ""))
        click.echo(f"    why: {v.reason}")
        for use in v.uses or ["(no rule function found)"]:
            click.echo(f"    used by: {use}")
        for finding in v.findings:
            click.echo(f"    finding: {finding}")
