// write_fasta_dataset implementation.
#include "data/simulation/fasta_dataset_writer.h"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/stop_signal.h"
#include "io/atomic_file.h"

namespace strand::data {
namespace {

// One split's FASTA and label TSV, as text.
struct SplitText {
  std::string fasta;
  std::string tsv;
};

SplitText split_text(const SimulatedSplit& split, const std::string& motif_name) {
  std::string fasta;
  std::string tsv;
  fasta.reserve(split.size() * (split.seq_length + 64));
  for (std::size_t i = 0; i < split.size(); ++i) {
    if (i % 4096 == 0) throw_if_stop_requested();  // SIGINT/SIGTERM: before any file is written
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
  return {std::move(fasta), std::move(tsv)};
}

}  // namespace

void write_fasta_dataset(const std::filesystem::path& dir, const SimulatedDataset& dataset) {
  // Every file's text first: a stop request (or an error) then leaves no file written.
  const std::pair<const char*, const SimulatedSplit*> parts[] = {
      {"train", &dataset.train}, {"valid", &dataset.validation}, {"test", &dataset.test}};
  std::vector<std::pair<std::string, SplitText>> texts;
  for (const auto& [stem, split] : parts) {
    texts.emplace_back(stem, split_text(*split, dataset.motif_name));
  }
  std::filesystem::create_directories(dir);
  for (const auto& [stem, text] : texts) {
    io::write_file_atomically(dir / (stem + ".fa"), text.fasta);
    io::write_file_atomically(dir / (stem + ".tsv"), text.tsv);
  }
}

}  // namespace strand::data
