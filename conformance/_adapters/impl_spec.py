"""What the user named with ``--impl``: a ``python:`` target, an object or factory, or a
command line; :func:`adapter_for` turns it into an adapter or an :class:`ImplementationError`
with the fix."""

from __future__ import annotations

import difflib
import importlib
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from .._clip import TEXT_CHARACTERS, foreign_text
from .._errors import ImplementationError
from ._base import Adapter, _kind, shebang_problem
from ._base import not_found as _not_found
from .in_process import _OBJECT_FIX, InProcessAdapter, _describe_object, _has_start_and_run
from .subprocess import IsolatedAdapter, SubprocessAdapter

#: The variable that hands the harness's ``sys.path`` to the worker of ``--isolate``.
WORKER_PATH_VARIABLE = "EVENTPROOF_WORKER_PATH"

# -- what the user named ----------------------------------------------------------------------


def _import_target(spec: str, source: str) -> Any:
    """The object that ``python:MODULE:ATTR`` names (ATTR may be dotted)."""
    body = spec[len("python:"):]
    module_name, sep, attr = body.partition(":")
    if not sep or not module_name or not attr:
        guess = ""
        if not sep and "." in body:
            module_part, _, name = body.rpartition(".")
            guess = f"Did you mean python:{module_part}:{name}? "
        raise ImplementationError(
            value=spec, source=source, reason="is not of the form python:MODULE:ATTR",
            fix=guess + "Name a module and an object in it, separated by a colon, e.g. "
                        "python:eventproof.reference:Reference",
        )
    if module_name.endswith(".py") or "/" in module_name:
        dotted = module_name.removesuffix(".py").replace("/", ".").strip(".")
        raise ImplementationError(
            value=spec, source=source, reason=f"names the file {module_name!r}, not a module",
            fix=f"Did you mean python:{dotted}:{attr}? Name the module as Python imports it, "
                "run from the directory that contains it",
        )
    cwd = os.getcwd()
    if cwd not in sys.path:
        # `--impl python:my_port:Impl` from a project directory must find my_port.py there.
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if missing == module_name or module_name.startswith(missing + "."):
            raise ImplementationError(
                value=spec, source=source,
                reason=f"names the module {module_name!r}, which cannot be found (no module "
                       f"named {missing!r} in the current directory {cwd} or on sys.path)",
                fix="Check the spelling, run eventproof from the directory that contains the "
                    "module or its package, or install the package into this environment "
                    f"({sys.executable})",
            ) from None
        raise ImplementationError(
            value=spec, source=source,
            reason=f"names the module {module_name!r}, which imports {missing!r}, and that is "
                   "not installed",
            fix=f"Install {missing} into the environment eventproof runs in ({sys.executable})",
        ) from None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the module failed while importing (sys.exit too): say why
        failed = error
        message = foreign_text(lambda: str(failed), "the message", TEXT_CHARACTERS)
        raise ImplementationError(
            value=spec, source=source,
            reason=f"names the module {module_name!r}, which raised {_kind(error)}: {message} "
                   "while being imported",
            fix=f"Fix the module; python -c 'import {module_name}' must succeed",
        ) from None
    target: Any = module
    walked: list[str] = []
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            names = [name for name in dir(target) if not name.startswith("_")]
            close = difflib.get_close_matches(part, names, n=1)
            owner = module_name + "".join(f".{name}" for name in walked)
            if close:
                fix = f"Did you mean python:{module_name}:{'.'.join([*walked, close[0]])}?"
            else:
                listed = ", ".join(names[:12]) or "no public names"
                fix = f"It defines: {listed}"
            raise ImplementationError(
                value=spec, source=source, reason=f"{owner} has no attribute {part!r}", fix=fix
            ) from None
        walked.append(part)
    return target


def _in_process(target: Any, description: str, source: str, timeout: float) -> InProcessAdapter:
    if not _has_start_and_run(target) and not callable(target):
        raise ImplementationError(
            value=description, source=source,
            reason=f"names a value of type {_kind(target)}, which has no start() and run()",
            fix=_OBJECT_FIX,
        )
    return InProcessAdapter(target, timeout=timeout, description=description, source=source)


def adapter_for(
    spec: str | object, *, timeout: float, use_shell: bool = False, source: str = "--impl",
    isolate: bool = False,
) -> Adapter:
    """The adapter for what the user named (spec/protocol.md §8; docs/write-an-adapter.md).

    - ``"python:MODULE:ATTR"``: an object with ``start``/``run``, or a zero-argument factory of
      one, imported with the current directory on ``sys.path``, run in process;
    - any other string: a command line, split like a POSIX shell (``shlex``) and started without
      a shell unless ``use_shell``, speaking the protocol on stdin/stdout;
    - an object or a factory: run in process.

    With ``isolate`` a ``python:`` target runs in a worker process behind the protocol instead
    (:class:`IsolatedAdapter`; objects and factories passed directly always run in process).
    An adapter already built (to pass options such as ``max_restarts``) is returned as it is.
    Raises :class:`ImplementationError` naming the value, ``source`` and the fix for every mistake.
    """
    if isinstance(spec, InProcessAdapter | SubprocessAdapter):
        return spec
    if not isinstance(spec, str):
        return _in_process(spec, _describe_object(spec), source, timeout)
    text = spec.strip()
    if not text:
        raise ImplementationError(
            value=spec, source=source, reason="is empty",
            fix="Name a command that speaks spec/protocol.md (e.g. 'node "
                "my-port/eventproof-port.mjs') or an object in process: python:MODULE:ATTR",
        )
    if text.startswith("python:"):
        if isolate:
            # The worker imports the target as this process would: with this process's
            # sys.path (a test's conftest, a caller's own entries), not only the directory.
            os.environ[WORKER_PATH_VARIABLE] = os.pathsep.join(
                entry for entry in sys.path if isinstance(entry, str))
            return IsolatedAdapter(text, timeout=timeout, source=source)
        return _in_process(_import_target(text, source), text, source, timeout)
    if use_shell:
        return SubprocessAdapter([text], timeout=timeout, use_shell=True, source=source,
                                 description=text)
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise ImplementationError(
            value=spec, source=source, reason=f"cannot be split into words: {error}",
            fix="Balance the quotes, or quote the whole value once more for your shell",
        ) from None
    program = argv[0]
    if Path(program).is_dir() and (os.sep in program or program.startswith(".")
                                   or shutil.which(program) is None):
        raise ImplementationError(
            value=spec, source=source, reason=f"the program {program!r} is a directory",
            fix="Name the program file inside it, or the interpreter and the file, e.g. "
                f"--impl 'node {program.rstrip('/')}/eventproof-port.mjs'",
        )
    if shutil.which(program) is None:
        if (os.sep in program or (os.altsep or os.sep) in program) and Path(program).is_file():
            raise ImplementationError(
                value=spec, source=source, reason=f"the program {program!r} is not executable",
                fix=f"Make it executable (chmod +x {shlex.quote(program)}) or run it through its "
                    f"interpreter, e.g. 'node {program}' or 'python3 {program}'",
            )
        raise _not_found(program, spec, source, argv)
    problem = shebang_problem(program)
    if problem is not None:  # a script whose interpreter is missing: say which, not "exit 127"
        raise ImplementationError(value=spec, source=source,
                                  reason=f"the program {program!r} cannot start: {problem[0]}",
                                  fix=problem[1])
    return SubprocessAdapter(argv, timeout=timeout, source=source, description=text)
