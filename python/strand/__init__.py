"""strand from Python: trained models, the genomic data loader, tensors, training, attributions
(strand.explain) and variant scores (strand.variants).

    import strand
    run = strand.train("reference", epochs=5)           # strand train, from a dict, file or preset
    model = strand.load(run.run_dir)                     # a run directory or a checkpoint
    scores = model.predict(["ACGT..."] * 8)              # numpy float32 (N, T)
    module = model.to_torch()                            # a torch.nn.Module with the same weights
    for batch in strand.data.Loader(fasta="genome.fa", intervals="peaks.bed", window=1000):
        codes = torch.from_numpy(batch["codes"])         # no copy
    effects = strand.explain.ism(model, ["ACGT..."])     # (N, 4, L), as tangermeme lays it out
    table = strand.variants.score(model, fasta="genome.fa", vcf="calls.vcf.gz")  # a DataFrame

The engine is strand's C++ library (strand._strand); compute releases the GIL.
"""
from . import _build_target, _cpu

_cpu.check(_build_target.CPU_ARCH)  # before the extension: a clear error, not SIGILL

from . import _strand
from ._strand import (
    ConfigError,
    DataError,
    DistError,
    Error,
    Model,
    Tensor,
    TrainingDiverged,
    from_numpy,
    from_torch,
    load,
)
from . import data, explain, motifs, variants
from ._torch import to_torch
from ._train import TrainRun, build, resolved_config, resume, train

Model.to_torch = to_torch

cuda_build = _strand.cuda_build

__all__ = [
    "ConfigError",
    "DataError",
    "DistError",
    "Error",
    "Model",
    "Tensor",
    "TrainRun",
    "TrainingDiverged",
    "build",
    "data",
    "explain",
    "motifs",
    "from_numpy",
    "from_torch",
    "load",
    "resolved_config",
    "resume",
    "to_torch",
    "train",
    "variants",
]
