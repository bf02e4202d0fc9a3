"""strand's genomic data loader for Python and PyTorch training loops.

    loader = strand.data.Loader(fasta="genome.fa", intervals="peaks.bed", window=1000,
                                batch_size=64, jitter=20, rc=0.5, shuffle=True, seed=0,
                                threads=2)
    for batch in loader:                      # one epoch; the next iteration is the next epoch
        x = torch.from_numpy(batch["codes"])  # (B, L) uint8, a view of strand's batch memory
        y = torch.from_numpy(batch["labels"]) # (B, T) float32

Batches are dicts of numpy arrays viewing the batch's memory (no copies): "codes" (or
"one_hot" with one_hot=True), "labels", "label_mask", "sample_index", "reverse", and
"profile" / "control" with bigWig tracks.
"""
from ._strand import Loader

__all__ = ["Loader"]
