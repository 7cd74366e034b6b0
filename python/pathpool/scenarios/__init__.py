"""Built-in scenarios shipped with pathpool, and finding a scenario by name.

Each ``NAME.toml`` in this folder is a built-in scenario called NAME. Its
opening comment says what it shows: the first paragraph of that comment is its
description (``pathpool scenarios`` lists them).
"""

from __future__ import annotations

import os
from pathlib import Path

BUILTIN_DIR = Path(__file__).parent


def builtin_scenarios() -> dict[str, tuple[Path, str]]:
    """The built-in scenarios: name -> (file path, one-paragraph description), sorted by name."""
    return {path.stem: (path, _description(path)) for path in sorted(BUILTIN_DIR.glob("*.toml"))}


def _description(path: Path) -> str:
    """The first paragraph of the comment that opens the file ``path``."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text.startswith("#"):
            break
        text = text.lstrip("#").strip()
        if not text:
            if lines:
                break
            continue
        lines.append(text)
    return " ".join(lines)


def resolve_scenario(arg: str | os.PathLike) -> Path:
    """The scenario file that ``arg`` names: an existing file, or else a built-in name.

    Raises FileNotFoundError, listing the built-in names, if it is neither.
    """
    path = Path(arg)
    if path.is_file():
        return path
    builtins = builtin_scenarios()
    if str(arg) in builtins:
        return builtins[str(arg)][0]
    raise FileNotFoundError(f"no scenario file {str(arg)!r} and no built-in scenario of that name"
                            f" (built-ins: {', '.join(builtins)})")
