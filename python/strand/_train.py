"""strand.train() and strand.resume(): `strand train` from Python."""
import dataclasses
import json
import os
import pathlib
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _strand

__all__ = ["TrainRun", "build", "resolved_config", "resume", "train"]


@dataclasses.dataclass
class TrainRun:
    """What a training run left: its directory, the logs of every epoch it trained, and its
    report.json (status, validation and test figures; None when interrupted before one)."""

    run_dir: str
    history: List[Dict[str, float]]
    report: Optional[Dict[str, Any]]
    interrupted: bool
    exit_code: int

    def load(self, device: str = "cpu") -> _strand.Model:
        """The run's trained model (its best checkpoint, else its last)."""
        return _strand.load(self.run_dir, device=device)


def _json_default(value):
    """Paths and numpy values in configs and overrides, as JSON."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return value.tolist()
    raise _strand.ConfigError(
        f"config: {value!r} ({type(value).__name__}) is not a config value (numbers, strings, "
        "lists and dicts)"
    )


def _config_text(config: Union[dict, str, os.PathLike]):
    if isinstance(config, dict):
        return json.dumps(config, default=_json_default), True
    if isinstance(config, (str, os.PathLike)):
        return os.fspath(config), False
    raise _strand.ConfigError(
        f"config: expected a dict, a JSON config file or a preset name, got {type(config).__name__}"
    )


def resolved_config(config: Union[dict, str, os.PathLike] = "reference", **overrides) -> dict:
    """The full config that train(config, **overrides) would run, as a dict (every key, the
    preset merged in, overrides applied): what the run's config.json will hold."""
    text, is_json = _config_text(config)
    pairs = [(name, json.dumps(value, default=_json_default)) for name, value in overrides.items()]
    return json.loads(_strand._resolved_config(text, is_json, pairs))


def _finish(result: dict) -> TrainRun:
    report_path = pathlib.Path(result["run_dir"]) / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    return TrainRun(
        run_dir=result["run_dir"],
        history=result["history"],
        report=report,
        interrupted=result["interrupted"],
        exit_code=result["exit_code"],
    )


def _callback_list(callbacks) -> list:
    if callbacks is None:
        return []
    if callable(callbacks) or not isinstance(callbacks, Sequence):
        return [callbacks]
    return list(callbacks)


def train(
    config: Union[dict, str, os.PathLike] = "reference",
    *,
    callbacks: Union[None, Callable, Sequence[Any]] = None,
    run_name: str = "",
    interactive: Optional[bool] = None,
    **overrides,
) -> TrainRun:
    """Trains as `strand train` does, in a new run directory under `output_dir` ("runs").

    `config` is a dict (a config file's content), a JSON config file, or a preset name
    ("reference", "basset", "deepsea", "bpnet"). Keyword overrides set config keys as the CLI's
    flags do, named by their key path with "__" between sections (data__jitter=20,
    optimizer__learning_rate=1e-3) or by their flag's name (jitter=20, lr=1e-3,
    valid_intervals="valid.bed", no_early_stopping=True); the config key table decides, so
    every key of `strand config-keys` works.

    `callbacks`: a callable, or a list of callables, called with each epoch's logs (a dict:
    "epoch", "global_step", "loss", "val_loss", "val_auroc", ...); returning True stops training
    after that epoch. An object with on_train_begin(), on_epoch_end(logs),
    on_batch_end(logs) (per step: "loss", "samples_per_second", ...) or on_train_end() gets
    those calls. An exception in a callback ends the run and is raised again here.

    Progress prints to sys.stdout as the CLI prints it (a redrawn bar when stdout is a terminal
    or `interactive` is True; log lines otherwise). Ctrl-C (SIGINT; a notebook's interrupt)
    stops training cleanly after the current step, as for the CLI: last.safetensors is written,
    report.json says "interrupted", and the result has interrupted=True (continue with
    strand.resume(run.run_dir)); a second Ctrl-C ends the process at once.

    Returns a TrainRun: run_dir, history (each epoch's logs), report (report.json),
    interrupted, exit_code. Raises strand.ConfigError for a bad config or override (naming the
    key) and strand.DataError for bad data (naming the file and line)."""
    resolved = resolved_config(config, **overrides)
    result = _strand._train(
        json.dumps(resolved), run_name, _callback_list(callbacks), interactive
    )
    return _finish(result)


def resume(
    run_dir: Union[str, os.PathLike],
    *,
    epochs: Optional[int] = None,
    threads: Optional[int] = None,
    callbacks: Union[None, Callable, Sequence[Any]] = None,
    interactive: Optional[bool] = None,
) -> TrainRun:
    """Continues an interrupted run from its last checkpoint, as `strand train --resume` does
    (the same per-step losses as a run never stopped). `epochs` trains longer; `threads`
    changes the thread count; nothing else can change. Callbacks as in train()."""
    result = _strand._resume(
        os.fspath(run_dir), epochs, threads, _callback_list(callbacks), interactive
    )
    return _finish(result)


def build(
    config: Union[dict, str, os.PathLike] = "reference",
    *,
    length: Optional[int] = None,
    tasks: int = 1,
    profile_tracks: int = 0,
    profile_length: int = 0,
    control_tracks: int = 0,
    device: str = "cpu",
    **overrides,
) -> _strand.Model:
    """A config's model before training (weights drawn from the config's seed), for data of the
    given sizes: input `length` (default: the config's window or simulated length), `tasks`
    label columns, `profile_tracks` x `profile_length` profile targets, `control_tracks`.
    `config` and overrides as in train(). Useful to inspect an architecture (summary()) or to
    take it to PyTorch (to_torch()) untrained."""
    resolved = resolved_config(config, **overrides)
    return _strand._build(
        json.dumps(resolved), length, tasks, profile_tracks, profile_length, control_tracks,
        device,
    )
