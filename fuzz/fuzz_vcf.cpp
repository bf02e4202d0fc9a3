// libFuzzer target: a variants file read by VariantReader (HTSlib's VCF API for VCF and BCF,
// strand's own reader for chrombpnet's TSV), with and without the options a VCF output uses,
// and every accepted DNA allele cut into windows by chrombpnet's rule.
//
// The first byte picks the file's name: 'v' -> in.vcf, 't' -> in.tsv, anything else ->
// in.txt (read as whatever HTSlib detects: a VCF or BCF with its header, else a TSV); the rest
// is the file. Expected: DataError. Findings: crashes, sanitizer reports, other exception
// types, and for an accepted record: a position below 1, no ALT in a TSV (a VCF or BCF record
// with ALT '.', a monomorphic site, has none), a REF that is not DNA (empty only in a TSV), an
// ALT that is neither DNA, symbolic nor '*' (empty only in a TSV), or line numbers that do not
// increase.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "fmt/format.h"
#include "fuzz/fuzz_support.h"
#include "variants/allele_windows.h"
#include "variants/variant_reader.h"

namespace {

using namespace strand;
using fuzz::finding;

constexpr int64_t kWindow = 64;

void check_record(const variants::VariantReader& reader, const variants::VariantRecord& record,
                  int64_t previous_line) {
  const bool tsv = reader.format() == variants::VariantFormat::kTsv;
  if (record.position < 1) finding(fmt::format("accepted position {}", record.position));
  if (record.alts.empty() && tsv) finding("accepted a TSV record without ALT");
  if (record.line <= previous_line) {
    finding(fmt::format("line {} after line {}", record.line, previous_line));
  }
  if (!variants::is_dna_allele(record.ref) && !(tsv && record.ref.empty())) {
    finding(fmt::format("accepted REF '{}'", record.ref));
  }
  for (const std::string& alt : record.alts) {
    const bool dna = variants::is_dna_allele(alt);
    if (!dna && !variants::is_symbolic_allele(alt) && !variants::is_spanning_deletion(alt) &&
        !(tsv && alt.empty())) {
      finding(fmt::format("accepted ALT '{}'", alt));
    }
    if ((dna || alt.empty()) && variants::alleles_fit(kWindow, record.ref, alt)) {
      const variants::AlleleSource source =
          variants::allele_source(record.position, kWindow, record.ref, alt);
      if (source.length < kWindow) finding("a window source shorter than the window");
      const std::vector<uint8_t> genome(static_cast<size_t>(source.length), 2);
      std::vector<uint8_t> ref(kWindow), alt_window(kWindow);
      variants::build_allele_windows(genome.data(), kWindow, record.ref, alt, ref.data(),
                                     alt_window.data());
    }
  }
}

void read_all(const std::string& path, bool for_vcf_output) {
  variants::VariantReaderOptions options;
  options.keep_records = for_vcf_output;
  options.keep_samples = for_vcf_output;
  options.require_declared_tags = for_vcf_output;
  if (for_vcf_output) options.declare_contigs = {{"chr1", 1000}, {"chr2", 500}};
  fuzz::parses<data::DataError>("VariantReader", [&] {
    variants::VariantReader reader(path, options);
    variants::VariantRecord record;
    int64_t previous = 0;
    int64_t records = 0;
    while (reader.next(record)) {
      check_record(reader, record, previous);
      if (for_vcf_output && reader.format() != variants::VariantFormat::kTsv && !record.raw) {
        finding("a kept record without its htslib form");
      }
      previous = record.line;
      if (++records > 100000) break;
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::filesystem::path& dir = fuzz::ScratchDir::get().fresh();
  const char* name = data[0] == 'v' ? "in.vcf" : data[0] == 't' ? "in.tsv" : "in.txt";
  const std::filesystem::path path = dir / name;
  fuzz::write_file(path, fuzz::as_text(data + 1, size - 1));
  read_all(path.string(), false);
  read_all(path.string(), true);
  return 0;
}
