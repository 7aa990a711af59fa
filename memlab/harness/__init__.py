"""The run pipeline (the harness): a config is resolved once, datasets are loaded, units (strategy × user) are
played by an executor and every record is written to the run folder by one writer.

``config`` (RunConfig, resolved strategies) → ``runner`` (Runner: plan, resume, judge pass, finalize)
→ ``executors`` (serial, processes, threads, Ray) → ``units`` (Workbench, UnitPlayer) → ``recorder``
(the run folder's streams, whose rows ``records`` defines) — see docs/architecture.md.
"""
