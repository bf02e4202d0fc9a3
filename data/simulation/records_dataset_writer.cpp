// write_records_dataset: FASTA records with their planted motifs, and a label TSV with a header.
#include "data/simulation/records_dataset_writer.h"

#include <algorithm>
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

SplitText split_text(const SequenceDataset& split) {
  std::string fasta;
  std::string tsv = "name";
  for (const std::string& task : split.task_names) tsv += "\t" + task;
  tsv += "\n";
  fasta.reserve(split.size() * (split.seq_length + 64));
  for (std::size_t i = 0; i < split.size(); ++i) {
    if (i % 4096 == 0) throw_if_stop_requested();  // SIGINT/SIGTERM: before any file is written
    const std::string name = fmt::format("seq{:06}", split.ids[i]);
    fasta += ">" + name;
    // Listed along the sequence, whatever order they were planted in.
    std::vector<Embedding> planted = split.embeddings[i];
    std::sort(planted.begin(), planted.end(),
              [](const Embedding& a, const Embedding& b) { return a.start < b.start; });
    for (std::size_t k = 0; k < planted.size(); ++k) {
      const Embedding& e = planted[k];
      fasta += fmt::format("{}{}@{}{}", k == 0 ? " motifs=" : ",", split.motif_names[e.motif],
                           e.start, e.reverse ? '-' : '+');
    }
    fasta += '\n';
    fasta += split.sequence_string(i);
    fasta += '\n';
    tsv += name;
    for (std::size_t t = 0; t < split.num_tasks(); ++t) {
      tsv += split.labels[i * split.num_tasks() + t] != 0.0F ? "\t1" : "\t0";
    }
    tsv += '\n';
  }
  return {std::move(fasta), std::move(tsv)};
}

}  // namespace

void write_records_dataset(const std::filesystem::path& dir, const SequenceSplits& splits) {
  // Every file's text first: a stop request (or an error) then leaves no file written.
  const std::pair<const char*, const SequenceDataset*> parts[] = {
      {"train", &splits.train}, {"valid", &splits.validation}, {"test", &splits.test}};
  std::vector<std::pair<std::string, SplitText>> texts;
  for (const auto& [stem, split] : parts) texts.emplace_back(stem, split_text(*split));
  std::filesystem::create_directories(dir);
  for (const auto& [stem, text] : texts) {
    io::write_file_atomically(dir / (stem + ".fa"), text.fasta);
    io::write_file_atomically(dir / (stem + ".tsv"), text.tsv);
  }
}

}  // namespace strand::data
