"""Every code block of the README and ``docs/`` is run, by this module or a named test (issue 23).

:func:`how_checked` says, for each fenced block, which test runs it (or why
it is shown only, e.g. a program's output); a new block that none of its
rules covers fails :func:`test_every_block_is_checked`, so a code block
cannot go stale unseen.  Every ``venncal`` command line in the docs is also
parsed here by the CLI's own parser, so a renamed or removed flag fails.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from venncal.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(
    not (ROOT / "README.md").exists(), reason="README.md and docs/ are not next to the tests"
)
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks():
    for md in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = md.read_text("utf-8")
        for m in BLOCK.finditer(text):
            line = text[: m.start()].count("\n") + 1
            yield f"{md.relative_to(ROOT)}:{line}", m.group(1), m.group(2)


def how_checked(where: str, lang: str, body: str) -> str | None:
    """The test that runs a block (or why it only shows something); None if nothing does."""
    name = where.split(":")[0]
    first = body.strip().splitlines()[0] if body.strip() else ""
    if lang == "python" and ">>>" in body:
        return {
            "README.md": "test_docs.py::test_readme_examples (doctest)",
            "docs/online.md": "test_online.py (doctest of docs/online.md)",
            "docs/multiclass.md": "test_multiclass_docs.py (doctest of docs/multiclass.md)",
            "docs/parametric.md": "test_temperature.py (doctest of docs/parametric.md)",
        }.get(name)
    if lang == "python":
        if name == "README.md" and "dask" in body:
            return "test_dask.py (runs the README's Dask example)"
        if name == "README.md" and "pyspark" in body:
            return "test_spark.py (runs the README's Spark example)"
        return {
            "docs/cli.md": "test_cli.py::test_docs_cli_examples (makes the walkthrough's data)",
            "docs/model-format.md": "test_persist_checksum.py (runs the checksum code)",
            "docs/reproductions.md": "test_docs_blocks.py::test_reproductions_example (slow)",
        }.get(name)
    if lang == "bash" and name == "README.md":
        return ".ci/run (the README's set-up commands)"
    if lang in ("console", "text") and _commands(body):
        return "test_docs_blocks.py::test_documented_commands_parse (+ test_cli.py runs '$' lines)"
    if lang == "text" and first.startswith("warning:"):
        return "shows a warning's text (test_cli.py checks the warning)"
    if lang in ("json", "") and name == "docs/model-format.md":
        return "test_persist.py::test_model_format_example_loads (the format's example)"
    if lang == "" and name == "docs/architecture.md":
        return "a diagram"
    return None


def _commands(body: str) -> list[str]:
    """The ``venncal`` command lines of a block (a synopsis with ``[...]`` is not one)."""
    out = []
    for raw in body.splitlines():
        line = raw.strip().removeprefix("$ ").strip()
        if line.startswith("venncal ") and "[" not in line and "..." not in line:
            out.append(line)
    return out


def test_every_block_is_checked():
    unchecked = [where for where, lang, body in _blocks() if how_checked(where, lang, body) is None]
    assert not unchecked, f"code blocks no test runs (add a rule to how_checked): {unchecked}"


def test_documented_commands_parse():
    parser = build_parser()
    commands = [line for _, _, body in _blocks() for line in _commands(body)]
    assert len(commands) > 15
    for line in commands:
        words = shlex.split(line.split(" | ")[0].split(" > ")[0])[1:]
        try:
            args = parser.parse_args(words)
        except SystemExit:  # argparse printed why
            pytest.fail(f"documented command does not parse: {line}")
        assert getattr(args, "func", None) is not None, line


@pytest.mark.slow
def test_reproductions_example(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "reproductions.md").read_text("utf-8")
    code = next(body for lang, body in BLOCK.findall(text) if lang == "python")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    exec(compile(code, "docs/reproductions.md", "exec"), {})  # noqa: S102 - our own docs
    assert os.path.exists(tmp_path / "adult-small" / "report.md")
