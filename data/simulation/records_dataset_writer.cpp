// write_records_dataset: FASTA records with their planted motifs, and a label TSV with a header.
#include "data/simulation/records_dataset_writer.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "io/atomic_file.h"

namespace strand::data {
namespace {

void write_split(const std::filesystem::path& dir, const std::string& stem,
                 const SequenceDataset& split) {
  std::string fasta;
  std::string tsv = "name";
  for (const std::string& task : split.task_names) tsv += "\t" + task;
  tsv += "\n";
  fasta.reserve(split.size() * (split.seq_length + 64));
  for (std::size_t i = 0; i < split.size(); ++i) {
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
  strand::io::write_file_atomically(dir / (stem + ".fa"), fasta);
  strand::io::write_file_atomically(dir / (stem + ".tsv"), tsv);
}

}  // namespace

void write_records_dataset(const std::filesystem::path& dir, const SequenceSplits& splits) {
  std::filesystem::create_directories(dir);
  write_split(dir, "train", splits.train);
  write_split(dir, "valid", splits.validation);
  write_split(dir, "test", splits.test);
}

}  // namespace strand::data
