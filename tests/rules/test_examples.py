"""The worked examples of docs/rules.md, exactly as written there (rows numbered from 1 there)."""

from collections.abc import Sequence

from arena.rules import Phase, Round, Settings


def position(rows: Sequence[Sequence[int]], plays: Sequence[int]) -> Round:
    """A round at a given table, each seat holding just the card it is about to play."""
    settings = Settings(players=len(plays))
    return Round(settings, 0, [0] * len(plays), rows, [[card] for card in plays])


def test_1_order_and_smallest_difference() -> None:
    game = position([[3], [21, 34], [46, 58], [96]], [93, 4, 90, 17])
    turn = game.play([93, 4, 90, 17])
    assert turn is not None
    assert [p.card for p in turn.placements] == [4, 17, 90, 93]
    assert [p.row for p in turn.placements] == [0, 0, 2, 2]
    assert game.rows == ((3, 4, 17), (21, 34), (46, 58, 90, 93), (96,))
    assert game.penalties == (0, 0, 0, 0)


def test_2_the_sixth_card() -> None:
    game = position([[60, 63, 66, 70, 73], [1], [2], [3]], [74, 4])
    game.play([74, 4])
    assert game.penalties == (3 + 1 + 5 + 3 + 1, 0)
    assert game.rows[0] == (74,)


def test_3_too_low_player_chooses_then_the_next_card_follows() -> None:
    rows = [[12, 13], [37], [58, 59, 60], [80, 81]]
    game = position(rows, [3, 9])
    assert game.play([3, 9]) is None
    assert game.phase is Phase.ROW and game.deciders == (0,)
    # The chooser sees the table as it is, and every card revealed this turn.
    view = game.view(0)
    assert view.revealed == (3, 9)
    assert view.rows == ((12, 13), (37,), (58, 59, 60), (80, 81))
    turn = game.choose_row(1)
    assert turn is not None and turn.placements[0].chosen
    assert game.rows == ((12, 13), (3, 9), (58, 59, 60), (80, 81))
    assert game.penalties == (1, 0)

    other = position(rows, [3, 9])
    other.play([3, 9])
    other.choose_row(0)
    assert other.rows[0] == (3, 9)
    assert other.penalties == (2, 0)


def test_4_the_trap() -> None:
    game = position([[5], [20, 30], [40, 50], [70, 75, 80, 83]], [85, 46, 59, 84])
    turn = game.play([85, 46, 59, 84])
    assert turn is not None
    assert game.rows == ((5,), (20, 30, 46), (40, 50, 59), (85,))
    assert game.penalties == (3 + 2 + 3 + 1 + 1, 0, 0, 0)
    assert turn.placements[-1].taken == (70, 75, 80, 83, 84)


def test_cards_after_a_row_choice_see_the_new_row_end() -> None:
    """Once the too-low card starts a row, every higher card of the turn can follow it."""
    game = position([[50], [60], [70], [80]], [2, 1, 90])
    game.play([2, 1, 90])
    assert game.deciders == (1,)
    game.choose_row(3)
    assert game.rows == ((50,), (60,), (70, 90), (1, 2))
    assert game.penalties == (0, 3, 0)
