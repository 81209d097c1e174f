"""Every setting's type, range and finiteness is checked once, by its declaration, wherever a
value comes from: a flag of any command, or a key of a tournament file. Each refusal is one line
that names the flag (or the file and its key), the value given and what would be accepted; exit
status 2, and nothing written.

The tables are made from the declarations themselves (every number of `arena run`, `arena
compare`, `arena play` and `arena check-bot`, each with values past its range, nan and the
infinities, a float past every range, a whole number past 64 bits), beside the cases the issue
named, written out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli.play import PlaySettings
from arena.server.declared import Declared, Range, declarations
from arena.server.options import OPTIONS_BY_NAME
from arena.tournament.compare import COMPARE_SETTINGS, NOT_SHARED
from arena.tournament.config import SETTINGS
from tests.cli.refusals import HIGHEST, LOWEST, TWO_BOTS, Case, refuse

RUN = ("run", *TWO_BOTS, "--quiet", "--output", "{OUT}")
COMPARE = ("compare", f"a={LOWEST}", f"b={HIGHEST}", "--field", f"c={LOWEST}", "--output", "{OUT}")
PLAY = ("play", *TWO_BOTS)
CHECK_BOT = ("check-bot",)
CHECKED_BOT = ("--", LOWEST)
CHECK_BOT_OPTIONS = ("deadline", "first_deadline", "time_bank", "startup_timeout")


def bad_numbers(declared: Declared) -> list[str]:
    """Values `declared` must refuse, as a flag gives them: just past each end of its range, nan
    and the infinities (for a float: as text, for a whole number: as text that is no whole
    number), a float past every range, and a whole number past every range."""
    bound = declared.bound
    assert isinstance(bound, Range), declared.name
    step = 1 if declared.kind is int else 0.5
    low = bound.low if bound.above else bound.low - step
    high = bound.high if bound.below else bound.high + step
    return [number(low), number(high), "nan", "inf", "-inf", "1e308", str(10**30)]


def number(value: float) -> str:
    """A number as a person types it: 4294967.5, 11, -1."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def flag(declared: Declared) -> str:
    return "--" + declared.name.replace("_", "-")


def numbers(declared: tuple[Declared, ...]) -> list[Declared]:
    return [each for each in declared if each.kind in (int, float)]


def cases(
    command: tuple[str, ...], declared: list[Declared], after: tuple[str, ...] = ()
) -> list[Case]:
    return [
        Case((*command, flag(each), value, *after), (flag(each), value))
        for each in declared
        for value in bad_numbers(each)
    ]


SHARED = [each for each in numbers(SETTINGS) if each.name not in NOT_SHARED]
FLAGS = [
    *cases(RUN, numbers(SETTINGS)),
    *cases(COMPARE, [*numbers(COMPARE_SETTINGS), *SHARED]),
    *cases(PLAY, [*numbers(declarations(PlaySettings)), OPTIONS_BY_NAME["deadline"]]),
    *cases(CHECK_BOT, [OPTIONS_BY_NAME[name] for name in CHECK_BOT_OPTIONS], CHECKED_BOT),
]

NAMED = [  # the cases of the issue, by name
    Case((*RUN, "--deadline", "nan"), ("--deadline", "nan", "a number of seconds above 0")),
    Case((*RUN, "--deadline", "inf"), ("--deadline", "inf")),
    Case((*RUN, "--deadline", "1e308"), ("--deadline", "1e308")),
    Case((*PLAY, "--deadline", "nan"), ("--deadline", "nan")),
    Case((*COMPARE, "--deadline", "nan"), ("--deadline", "nan")),
    Case((*CHECK_BOT, "--deadline", "nan", *CHECKED_BOT), ("--deadline", "nan")),
    Case((*COMPARE, "--margin", "nan"), ("--margin", "nan", "a number of bullheads above 0")),
    Case((*RUN, "--end-score", str(10**30)), ("--end-score", str(10**30), "from 1 to 2147483647")),
    Case((*RUN, "--pids", "1000000000000"), ("--pids", "1000000000000", "from 8 to 4194304")),
    Case((*RUN, "--startup-timeout", "nan"), ("--startup-timeout", "nan")),
    Case((*RUN, "--build-timeout", "nan"), ("--build-timeout", "nan")),
    Case((*RUN, "--time-bank", "nan"), ("--time-bank", "nan", "from 0")),
    Case((*RUN, "--first-deadline", "-1"), ("--first-deadline", "-1")),
    Case((*RUN, "--sample", "0"), ("--sample", "0", "a whole number of tables from 1")),
    Case((*RUN, "--memory-mb", "16"), ("--memory-mb", "16", "a whole number of MiB from 128")),
    Case((*RUN, "--players", "abc"), ("--players", "'abc'", "a whole number from 2 to 10")),
    Case((*RUN, "--variant", "chinese"), ("--variant", "'chinese'", "one of standard")),
    Case(  # was a MemoryError traceback, after results.sqlite was made
        (*RUN, "--games", "2000000000", "--sample", "1"),
        ("--games 2000000000", "2000000000 games: more than a tournament plans (1000000)"),
    ),
    # once two settings lumped in one message: each now alone, by its flag
    Case((*RUN, "--standings-every", "-1"), ("--standings-every", "-1", "from 0")),
    Case((*RUN, "--build-timeout", "0"), ("--build-timeout", "0", "above 0")),
    Case((*RUN, "--max-faults", "-1"), ("--max-faults", "-1", "faults from 0")),
    Case((*RUN, "--startup-timeout", "0"), ("--startup-timeout", "0", "above 0")),
]


@pytest.mark.parametrize("case", [*NAMED, *FLAGS], ids=str)
def test_a_flag_out_of_its_declaration_is_one_line_naming_it(case: Case, tmp_path: Path) -> None:
    refuse(case, tmp_path)


def key_cases() -> list[Case]:
    """Every number of a tournament file past its range, nan, the infinities, a float past every
    range, a table, an array and a string; each must name the file, the key and the value."""
    found = []
    for each in numbers(SETTINGS):
        bound = each.bound
        assert isinstance(bound, Range)
        low = bound.low if bound.above else bound.low - 1
        high = bound.high if bound.below else bound.high + 1
        values = {
            number(low): number(low),
            "nan": "nan",
            "inf": "inf",
            "-inf": "-inf",
            "1e308": "1e+308",
            "{ a = 1 }": "a table",
            "[1, 2]": "an array",
            '"1"': "'1'",
        }
        if high < 2**63:  # TOML holds whole numbers of 64 bits
            values[number(high)] = number(high)
        for value, shown in values.items():
            text = f"[tournament]\n{each.name} = {value}\n"
            names = ("t.toml", f"{each.name} is {shown}, not {each.accepted()}")
            found.append(Case(("run", "t.toml", "--output", "{OUT}"), names, {"t.toml": text}))
    return found


@pytest.mark.parametrize("case", key_cases(), ids=lambda case: case.files["t.toml"].split("\n")[1])
def test_a_key_out_of_its_declaration_is_one_line_naming_it(case: Case, tmp_path: Path) -> None:
    refuse(case, tmp_path)


def test_every_number_a_command_takes_is_in_a_table() -> None:
    """A number added to a declaration is in the tables above without a word: this checks that
    the tables are made of every declaration there is."""
    tried = {case.args[case.args.index(case.names[0])] for case in FLAGS}
    declared = {flag(each) for each in [*numbers(SETTINGS), *numbers(COMPARE_SETTINGS)]}
    assert declared <= tried
    assert {"--rotation", "--seed", "--players", "--deadline"} <= tried
