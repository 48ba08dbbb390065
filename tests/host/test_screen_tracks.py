"""Issue 15 (screens a new player can read): a track (The Circle's time wheel, Circleville's
courthouse rondel) is drawn one step a line, label in a column and what is on it after, not
run together as `8: > 7: > 6: ...` with its marks glued to one another."""
import random

from ringside import games
from ringside.app.screen import Screen
from ringside.games import CHANCE
from ringside.games.circle import present as CP
from ringside.games.circleville import present as VP


def _played(name, players, seed, steps):
    g = games.new(name, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        s = g.to_act()[0]
        g.apply(s, g.chance_action() if s == CHANCE else rng.choice(g.legal_actions(s)))
    return g


def _section_lines(text, title_start):
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(title_start))
    out = []
    for line in lines[i + 1:]:
        if not line.strip():
            break
        out.append(line)
    return out


def test_the_circles_time_wheel_is_one_step_a_line_with_its_spies_apart():
    g = games.new("circle", ["Ann", "Bob", "Cy"], seed=3)
    rng = random.Random(3)
    while max(len(w["spies"]) for w in g.view(0)["wheel"]) < 2:       # until a step holds two spies
        s = g.to_act()[0]
        g.apply(s, g.chance_action() if s == CHANCE else rng.choice(g.legal_actions(s)))
    text = Screen(colour=False).render(CP.picture(g, 0))
    rows = _section_lines(text, "The time wheel")
    assert [r[2:].split()[0] for r in rows[:8]] == ["8", "7", "6", "5", "4", "3", "2", "1"]
    assert " > " not in "\n".join(rows) and all(":" not in r[:6] for r in rows)
    wheel = {w["number"]: w["spies"] for w in g.view(0)["wheel"]}
    busy = next(n for n in range(8, 0, -1) if len(wheel.get(n, [])) >= 2)
    row = rows[8 - busy]
    assert all(s["card"] in row for s in wheel[busy]) and ", " in row     # marks apart


def test_circlevilles_rondel_is_one_space_a_line_with_its_assistants_apart():
    g = _played("circleville", ["Ann", "Cy"], seed=3, steps=0)
    text = Screen(colour=False).render(VP.picture(g, 0))
    rows = _section_lines(text, "The courthouse rondel")
    assert len(rows) == 8 and [r[2:].split()[0] for r in rows] == [str(k) for k in range(8)]
    assert "A, C" in rows[0] and all(r.rstrip().endswith("-") for r in rows[1:])


def test_circlevilles_town_fits_a_terminal_a_quadrant_at_a_time():
    """The town's four quadrants of long cells were one 170-column table, misaligned in an
    80-column terminal; now a quadrant at a time, each section on its own line."""
    g = _played("circleville", ["Ann", "Cy"], seed=3, steps=0)
    text = Screen(colour=False).render(VP.picture(g, 0))
    rows = _section_lines(text, "The town")
    assert all(len(r) <= 80 for r in rows), max(rows, key=len)
    assert [r for r in rows if r.startswith("quadrant")] == ["quadrant %d" % q for q in (1, 2, 3, 4)]
    assert sum(1 for r in rows if r.startswith("  ")) == 20                # the 20 sections


def test_a_narrow_grid_stays_a_grid():
    g = games.new("doubles", ["Ann", "Cy"], seed=3)
    from ringside.games.doubles import present as DP
    rows = _section_lines(Screen(colour=False).render(DP.picture(g, 0)), "The board")
    assert rows[0].split() == ["a", "b", "c", "d", "e", "f"] and len(rows) == 6
