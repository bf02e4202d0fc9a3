// write_fasta_dataset implementation.
#include "data/simulation/fasta_dataset_writer.h"

#include <string>

#include <fmt/format.h>

#include "io/atomic_file.h"

namespace strand::data {
namespace {

void write_split(const std::filesystem::path& dir, const std::string& stem,
                 const SimulatedSplit& split, const std::string& motif_name) {
  std::string fasta;
  std::string tsv;
  fasta.reserve(split.size() * (split.seq_length + 64));
  for (std::size_t i = 0; i < split.size(); ++i) {
    const std::string name = fmt::format("seq{:06}", split.ids[i]);
    const int label = split.labels[i] != 0.0f ? 1 : 0;
    fasta += fmt::format(">{} label={}", name, label);
    if (split.motif_strands[i] != 0) {
      fasta += fmt::format(" motif={} start={} strand={}", motif_name, split.motif_starts[i],
                           split.motif_strands[i] > 0 ? '+' : '-');
    }
    fasta += '\n';
    fasta += split.sequence_string(i);
    fasta += '\n';
    tsv += fmt::format("{}\t{}\n", name, label);
  }
  strand::io::write_file_atomically(dir / (stem + ".fa"), fasta);
  strand::io::write_file_atomically(dir / (stem + ".tsv"), tsv);
}

}  // namespace

void write_fasta_dataset(const std::filesystem::path& dir, const SimulatedDataset& dataset) {
  std::filesystem::create_directories(dir);
  write_split(dir, "train", dataset.train, dataset.motif_name);
  write_split(dir, "valid", dataset.validation, dataset.motif_name);
  write_split(dir, "test", dataset.test, dataset.motif_name);
}

}  // namespace strand::data
