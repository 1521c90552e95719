"""Output paths of the commands that write files: checked before the work, named up front.

Every writing command (``roundtable train``, ``eval --json/--save-games``, ``exploit
--json/--save/--record``, ``replay --html``, ``leaderboard``, ``ship``, ``league``)
calls these before it starts its work, so a long run never ends in "cannot write" and a
user's file is never replaced without ``--overwrite``:

- :func:`check_new_file` — a file the command creates: refused if it exists (unless
  ``overwrite``), if it is a folder or a dangling symbolic link, or if it cannot be created
  (the nearest existing folder above it is a file or is not writable);
- :func:`check_output_folder` — a folder the command writes named files into (``eval
  --save-games``): refused if it is a file or cannot be written, or if a file it would write
  exists (unless ``overwrite``);
- :func:`check_editable_file` — a file the command edits in place on purpose (the README's
  leaderboard block, a checkpoint card with ``--record``): it must exist and be writable;
- :func:`announce` — the line that names the outputs before the work starts;
- :func:`write_text_atomic` — how the in-place edits write: a failure part way (a full disk,
  Ctrl-C) leaves the old file whole, never a truncated README or card.

Errors are ``ValueError`` (``FileExistsError`` for a file that exists), one line naming the
option, the path, what is wrong and what to do; the CLI prints them with exit status 2.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path


def nearest_existing(path: Path) -> Path:
    """The path itself or its nearest existing ancestor (the current folder at worst)."""
    for candidate in (path, *path.parents):
        if candidate.exists() or candidate.is_symlink():
            return candidate
    return Path.cwd()


def _check_creatable(target: Path, option: str, shown: str) -> None:
    """The folder that would receive ``target`` exists, or can be made, and is writable."""
    base = nearest_existing(target.parent)
    if not base.is_dir():
        raise ValueError(f"{option} {shown}: cannot be created, {base} is not a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {shown}: cannot be created, folder {base} is not writable")


def check_new_file(path: str | Path, option: str, *, overwrite: bool = False,
                   example: str = "out.json", make_parents: bool = False) -> Path:
    """Refuse, before any work, an output file that could not or must not be written.

    ``make_parents``: the command creates missing folders above the file (otherwise the
    folder must exist). Returns the path.
    """
    target = Path(path)
    shown = str(path)
    if target.is_symlink() and not target.exists():
        raise ValueError(f"{option} {shown}: is a symbolic link to {os.readlink(target)}, "
                         "which does not exist; remove the link or name another file")
    if target.is_dir():
        raise ValueError(f"{option} {shown}: is a folder; give a file path such as "
                         f"{target / example}")
    if target.exists():
        if not overwrite:
            raise FileExistsError(f"{option} {shown}: exists; pass --overwrite to replace it")
        if not os.access(target, os.W_OK):
            raise ValueError(f"{option} {shown}: exists and is not writable")
    if not make_parents and not target.parent.is_dir():
        raise ValueError(f"{option} {shown}: folder {target.parent} does not exist")
    _check_creatable(target, option, shown)
    return target


def check_output_folder(folder: str | Path, option: str, names: Iterable[str],
                        overwrite: bool = False) -> Path:
    """Refuse, before any work, a folder that cannot take the files ``names`` (a file in its
    place, a dangling link, a missing parent, no write permission) or files that would replace
    existing ones without ``overwrite``. Returns the folder."""
    target = Path(folder)
    shown = str(folder)
    if target.is_symlink() and not target.exists():
        raise ValueError(f"{option} {shown}: is a symbolic link to {os.readlink(target)}, "
                         "which does not exist; remove the link or name another folder")
    if target.exists() and not target.is_dir():
        raise ValueError(f"{option} {shown}: is a file, not a folder")
    if not target.exists() and not target.parent.is_dir():
        raise ValueError(f"{option} {shown}: folder {target.parent} does not exist")
    writable = target if target.exists() else target.parent
    if not os.access(writable, os.W_OK):
        raise ValueError(f"{option} {shown}: not writable")
    clashes = [name for name in names if (target / name).exists()]
    if clashes and not overwrite:
        more = f" (and {len(clashes) - 1} more)" if len(clashes) > 1 else ""
        raise ValueError(f"{option} {shown}: {clashes[0]}{more} exists; "
                         f"pass --overwrite to replace the records")
    return target


def check_editable_file(path: str | Path, option: str) -> Path:
    """Refuse, before any work, a file the command will rewrite in place but cannot."""
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{option} {path}: is a folder, not a file")
    if not target.is_file():
        raise ValueError(f"{option} {path}: no such file (looked in {Path.cwd()})")
    if not os.access(target, os.W_OK):
        raise ValueError(f"{option} {path}: not writable")
    return target


def announce(prog: str, outputs: Iterable[tuple[str, str | Path]]) -> None:
    """Print, before the work starts, what the command will write and where."""
    for what, path in outputs:
        print(f"{prog}: writes {what} to {path}", flush=True)


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 with :func:`write_bytes_atomic`; text that is not valid Unicode
    (a lone surrogate) fails before any file is made."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it to disk and rename it over
    ``path`` (through a symbolic link, to its target, keeping the file's mode): a failure at
    any point leaves ``path`` as it was and no temporary file behind."""
    target = Path(path).resolve()
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            shutil.copymode(target, tmp)
        os.replace(tmp, target)
    except OSError as err:  # named by the file asked for, not the temporary one
        tmp.unlink(missing_ok=True)
        raise OSError(err.errno, err.strerror, str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
