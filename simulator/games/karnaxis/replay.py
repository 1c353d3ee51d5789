"""Karnaxis replay: a traced game decoded into a readable play-by-play (``balsim replay``)."""

import numpy as np

from simulator.games.karnaxis import checks, outputs
from simulator.games.karnaxis import state as S


def _usd(x: int) -> str:
    return f"-${-x:,}" if x < 0 else f"${x:,}"


class OptionNames:
    """Readable names of a decision's options, for the replay."""

    def __init__(self, rules: dict, n_players: int):
        self.rules = rules
        self.chars, self.jobs = (
            checks.card_names(rules["characters"]),
            checks.card_names(rules["jobs"]),
        )
        self.biz = checks.card_names(rules["businesses"])
        self.stocks = [f"seat {s}'s business" for s in range(n_players)] + ["the black business"]

    def action(self, a: int, b: int) -> str:
        """Take Action!: action space ``a`` with its argument ``b`` (job, business, ...)."""
        name, detail = S.ACTION_NAMES[a], ""
        if a in (S.ACT_JOB_SEARCH, S.ACT_WORK):
            detail = f" ({self.jobs[b]})"
        elif a == S.ACT_BUSINESS:
            detail = f" ({self.biz[b]})"
        elif a == S.ACT_FRANCHISE:
            detail = f" (in {self.stocks[b]})"
        elif a == S.ACT_COLLEGE:
            name = "university" if b == 1 else "college"
        elif a == S.ACT_ADVERTISE:
            detail = f" (tier {b + 1})"
        return name + detail

    def trade(self, a: int, b: int) -> str:
        """Buy/Sell Stock: trade kind ``a``; ``b`` = stock * 1000 + shares."""
        kind = ("done", "hires an accountant", "buys insurance", "sells", "buys")[a]
        if a in (S.MK_SELL, S.MK_BUY):
            kind += f" {b % 1000} shares of {self.stocks[b // 1000]}"
        return kind

    def option(self, kind: int, a: int, b: int) -> str:
        """An option a search weighed (EV_SEARCH_OPTION's a and b) of a decision of ``kind``."""
        if kind == S.D_ACTION:
            return self.action(a, b)
        if kind == S.D_MARKET:
            return self.trade(a, b)
        if kind == S.D_CHARACTER:
            return self.chars[a]
        if kind == S.D_ATTRIBUTE:
            return f"raise {self.rules['setup']['attributes'][a]}"
        if kind == S.D_REROLL:
            return "re-roll" if a == 1 else "keep the roll"
        return "use the card" if a == S.CU_USE else "save it"


def replay(params: tuple, seed: int, seat_policies: np.ndarray, rules: dict) -> list[str]:
    """A readable play-by-play of one game: year, seat, what happened, cash before→after."""
    chars, jobs, events = (
        checks.card_names(rules["characters"]),
        checks.card_names(rules["jobs"]),
        checks.card_names(rules["events"]),
    )
    n_players = params[0][S.CFG_PLAYERS]
    names = OptionNames(rules, n_players)
    stock_names, cards = names.stocks, rules["karnaxis_cards"]
    lines, kind = [], S.D_ACTION
    trace, _ = outputs.trace_game(params, seed, seat_policies)
    for event, year, seat, a, b, before, after in trace.tolist():
        who = f"year {year:2d} seat {seat}"
        money = f"(cash {_usd(before)}→{_usd(after)})"
        if event == S.EV_CHARACTER:
            lines.append(f"setup seat {seat}: plays {chars[a]}, cash {_usd(after)}")
        elif event == S.EV_YEAR:
            lines.append(f"== year {a}, seat {seat} starts")
        elif event == S.EV_EVENT:
            lines.append(f"year {year:2d}: event card '{events[a]}'")
        elif event == S.EV_EVENT_CASH:
            lines.append(f"{who}: event '{events[a]}' {money}")
        elif event == S.EV_STOCK:
            lines.append(
                f"year {year:2d}: seat {seat} rolls {b:+d} for {stock_names[a]} ({before}→{after})"
            )
        elif event == S.EV_REROLL:
            lines.append(f"{who}: re-rolls the die for {stock_names[a]} ({b:+d} → {before:+d})")
        elif event == S.EV_CRASH:
            lines.append(
                f"year {year:2d}: {stock_names[a]} hits 0, {b} shares removed, value → {after}"
            )
        elif event == S.EV_DIVIDEND:
            lines.append(
                f"year {year:2d}: {stock_names[a]} hits $, pays {_usd(b)} in dividends, "
                f"value → {after}"
            )
        elif event == S.EV_ACTION:
            lines.append(f"{who}: {names.action(a, b)} {money}")
        elif event == S.EV_TRADE:
            lines.append(f"{who}:   {names.trade(a, b)} {money}")
        elif event == S.EV_SEARCH:
            kind = a
            lines.append(
                f"{who}:   search weighs {before} of {b} {S.DECISION_NAMES[a]} options "
                f"in {after} rollouts:"
            )
        elif event == S.EV_SEARCH_OPTION:
            lines.append(
                f"{who}:     {names.option(kind, a, b)}: mean value "
                f"{before / 1_000_000:+.3f} over {after} rollouts"
            )
        elif event == S.EV_CARD:
            lines.append(f"{who}:   uses a Karnaxis card: {cards['effect'][a]} {b} {money}")
        elif event == S.EV_CARD_SAVED:
            lines.append(f"{who}:   saves a Karnaxis card: {cards['effect'][a]} {b}")
        elif event == S.EV_FIRED:
            lines.append(f"{who}: loses the {jobs[a]} job")
        elif event == S.EV_LOAN:
            lines.append(f"{who}: borrows {_usd(a)}, loans now {_usd(b)} {money}")
        elif event == S.EV_NOTICE:
            lines.append(f"{who}: cannot pay {_usd(b)}: {a} delinquent notice(s), the bank pays it")
        elif event == S.EV_SALARY:
            lines.append(f"{who}: salary {_usd(a)} {money}")
        elif event == S.EV_BUSINESS_INCOME:
            lines.append(f"{who}: business income {_usd(a)} (growth {_usd(b)}) {money}")
        elif event == S.EV_TAX:
            lines.append(f"{who}: taxes {_usd(a)} (bracket {b}) {money}")
        elif event == S.EV_LOAN_PAYMENT:
            lines.append(f"{who}: loan payment {_usd(a)} + interest {_usd(b)} {money}")
        elif event == S.EV_KARNAXIS:
            lines.append(f"{who}: fulfils {chars[a]}'s Karnaxis {money}")
        elif event == S.EV_FORFEIT:
            lines.append(f"{who}: took a loan, pays the Karnaxis reward back {money}")
        elif event == S.EV_RETIREMENT:
            lines.append(f"final seat {seat}: {a} retirement tokens pay {_usd(b)} {money}")
        elif event == S.EV_FINAL:
            lines.append(f"final seat {seat}: {a} notices, loans settled, final cash {_usd(after)}")
    return lines
