"""docs/autograd.md stays true: every debugger stop it shows, ``file.py(N)function()``
followed by ``-> statement``, is that statement's line in that function of today's code, so
a learner who follows the page sees the same numbers. (tests/test_frame_depth.py checks
that backward really goes through the frames the page names.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "autograd.md"
STOP = re.compile(r"^[> ] ?(microtorch/[\w/]+\.py)\((\d+)\)(\w+)\(\)")


def stops() -> list[tuple[str, int, str, str]]:
    """(file, line, function, statement) for each stop shown with its statement."""
    lines = PAGE.read_text().splitlines()
    found = []
    for line, following in zip(lines, lines[1:]):
        m = STOP.match(line)
        if m and following.startswith("-> "):
            found.append((m.group(1), int(m.group(2)), m.group(3), following[3:].strip()))
    return found


def test_the_page_shows_debugger_stops() -> None:
    assert len(stops()) >= 10


def test_each_stop_is_at_its_statement_in_its_function() -> None:
    wrong = []
    for path, number, function, statement in stops():
        source = (ROOT / path).read_text()
        spans = [(node.lineno, node.end_lineno) for node in ast.walk(ast.parse(source))
                 if isinstance(node, ast.FunctionDef) and node.name == function]  # fmt: skip
        lines = source.splitlines()
        where = [i + 1 for i, text in enumerate(lines) if text.strip() == statement]
        where = [n for n in where if any(a <= n <= b for a, b in spans)]
        if number not in where:
            now = f"now at line {where[0]}" if where else "not found"
            wrong.append(f"{path}({number}){function}(): {statement!r} is {now}")
    assert not wrong, "docs/autograd.md: update these line numbers:\n" + "\n".join(wrong)
