"""Blind miniatures: a port written from the spec text alone, and wrong variants of it.

``port.py`` is a clean implementation of ``select``, ``fold``, ``classify`` and ``project``
written from spec/selection.md §1-4, §6-7 and spec/wire.md, without the reference's code.
``bugs.py`` plants one plausible porting bug per class in it. ``full_port.py`` extends it to
``settle`` (spec/selection.md §5) and the budget profile (spec/budget.md), and ``full_bugs.py``
plants bugs in those. ``measure.py`` runs the kit's search against every bug and writes the tables
of RESULTS.md.
"""
