"""strand.train(): the CLI's training from a dict, file or preset with keyword overrides mapped
through the config key table, callbacks, Ctrl-C, resume, and errors."""
import json
import os
import pathlib
import signal

import numpy as np

import pytest

import strand
from conftest import small_reference_overrides


def test_overrides_follow_the_config_key_table():
    config = strand.resolved_config(
        "reference", epochs=3, data__length=150, lr=0.01, no_early_stopping=True,
        optimizer__beta1=0.8, **{"early_stopping.patience": 9}
    )
    assert config["epochs"] == 3
    assert config["data"]["length"] == 150
    assert config["optimizer"]["learning_rate"] == 0.01
    assert config["optimizer"]["beta1"] == 0.8
    assert config["early_stopping"]["enabled"] is False
    assert config["early_stopping"]["patience"] == 9
    files = strand.resolved_config({"data": {"source": "files"}}, fasta="g.fa", jitter=5,
                                   valid_intervals="v.bed")
    assert files["data"]["fasta"] == "g.fa" and files["data"]["jitter"] == 5
    assert files["data"]["valid_intervals"] == "v.bed"
    typed = strand.resolved_config("reference", epochs=np.int64(4), output_dir=pathlib.Path("x"))
    assert typed["epochs"] == 4 and typed["output_dir"] == "x"
    basset = strand.resolved_config("basset")
    assert basset["optimizer"]["name"] == "rmsprop"
    assert strand.resolved_config("reference")["precision"] == "fp32"
    assert strand.resolved_config("reference", precision="bf16")["precision"] == "bf16"


def test_bad_configs_and_overrides_are_refused(tmp_path):
    with pytest.raises(strand.ConfigError, match="learnig_rate: not a config key.*learning_rate"):
        strand.resolved_config("reference", learnig_rate=0.1)
    with pytest.raises(strand.ConfigError, match="epochs: expected an integer"):
        strand.resolved_config("reference", epochs="many")
    with pytest.raises(strand.ConfigError, match="names several config keys"):
        strand.resolved_config("reference", name="adam")
    with pytest.raises(strand.ConfigError, match="optimizer.learnig_rate: unknown key"):
        strand.resolved_config({"optimizer": {"learnig_rate": 1}})
    with pytest.raises(strand.ConfigError, match="expected a dict"):
        strand.train(42)
    with pytest.raises(strand.ConfigError, match="is not a config value"):
        strand.resolved_config("reference", epochs=object())
    with pytest.raises(strand.ConfigError, match="epochs"):
        strand.train("reference", epochs=0, output_dir=str(tmp_path))
    with pytest.raises(strand.ConfigError, match="model"):
        strand.train({"model": [{"type": "Conv1D"}]}, output_dir=str(tmp_path))
    with pytest.raises(strand.ConfigError, match="precision: 'fp16' is not one of fp32, tf32"):
        strand.train("reference", precision="fp16", output_dir=str(tmp_path))
    assert not any(tmp_path.iterdir())  # a config error leaves no run directory


def test_a_run_leaves_its_directory_history_and_report(reference_run, capsys):
    assert os.path.isdir(reference_run.run_dir)
    assert [logs["epoch"] for logs in reference_run.history] == [0, 1]
    assert {"loss", "val_loss", "val_auroc"} <= set(reference_run.history[0])
    assert reference_run.report["status"] == "completed"
    assert not reference_run.interrupted and reference_run.exit_code == 0
    config = json.loads(open(os.path.join(reference_run.run_dir, "config.json")).read())
    assert config["data"]["n_pos"] == 300


def test_progress_prints_to_python_stdout(tmp_path, capsys):
    overrides = small_reference_overrides(tmp_path)
    overrides["epochs"] = 1
    strand.train("reference", **overrides)
    printed = capsys.readouterr().out
    assert "model:" in printed and "training: up to 1 epochs" in printed
    assert "test" in printed


def test_callbacks_get_each_epoch_and_may_stop(tmp_path):
    seen = []

    class Steps:
        def __init__(self):
            self.losses = []
            self.began = False

        def on_train_begin(self):
            self.began = True

        def on_batch_end(self, logs):
            self.losses.append(logs["loss"])

    steps = Steps()
    overrides = small_reference_overrides(tmp_path)
    overrides["epochs"] = 5

    def stop_after_two(logs):
        seen.append(logs)
        return logs["epoch"] == 1

    run = strand.train("reference", callbacks=[stop_after_two, steps], **overrides)
    assert [logs["epoch"] for logs in seen] == [0, 1]
    assert seen == run.history
    assert steps.began and len(steps.losses) == 2 * 8  # 400 training sequences, batch 50
    assert run.report["status"] == "completed"


def test_a_callback_exception_is_raised_and_recorded(tmp_path):
    def fail(logs):
        raise KeyError("from the callback")

    overrides = small_reference_overrides(tmp_path)
    with pytest.raises(KeyError, match="from the callback"):
        strand.train("reference", callbacks=fail, run_name="failing", **overrides)
    report = json.loads((tmp_path / "failing" / "report.json").read_text())
    assert report["status"] == "failed" and "from the callback" in report["error"]


def test_ctrl_c_stops_cleanly_and_resume_finishes(tmp_path):
    previous = signal.getsignal(signal.SIGINT)

    class Interrupt:
        def on_batch_end(self, logs):
            if logs["global_step"] == 15:
                os.kill(os.getpid(), signal.SIGINT)

    overrides = small_reference_overrides(tmp_path)
    run = strand.train("reference", callbacks=Interrupt(), run_name="stopped", **overrides)
    assert run.interrupted and run.exit_code == 130
    assert run.report["status"] == "interrupted"
    assert os.path.exists(os.path.join(run.run_dir, "checkpoints", "last.safetensors"))
    assert signal.getsignal(signal.SIGINT) is previous  # Python's handler is back
    resumed = strand.resume(run.run_dir)
    assert not resumed.interrupted and resumed.report["status"] == "completed"
    assert [logs["epoch"] for logs in resumed.history] == [1]


def test_a_config_file_and_a_preset_name(tmp_path):
    overrides = small_reference_overrides(tmp_path)
    overrides["epochs"] = 1
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"preset": "reference", "batch_size": 60}))
    run = strand.train(str(path), **overrides)
    assert json.loads(open(os.path.join(run.run_dir, "config.json")).read())["batch_size"] == 50
    assert run.load().input_length == 120
