// What a run's checkpoints record of the config and data files they were trained with, and the
// check `strand train --resume` makes against it: a config.json edited after the run started
// (another window, other intervals) or a data file changed on disk is refused, naming what
// differs, instead of training the next epochs on other data.
#pragma once

#include <cstdint>
#include <string>

#include "app/run_config.h"
#include "train/checkpoint.h"

namespace strand::app {

/// Data files up to this size are hashed whole; larger ones by kSampledBlocks blocks.
inline constexpr int64_t kWholeFileHashBytes = int64_t{256} << 20;
/// Blocks of kSampledBlockBytes hashed, evenly spaced from the first to the last, for a file
/// larger than kWholeFileHashBytes (a genome, a bigWig): 64 MiB read however large the file.
inline constexpr int64_t kSampledBlocks = 64;
inline constexpr int64_t kSampledBlockBytes = int64_t{1} << 20;

/// A file's identity for the resume check: its size and a CRC-32C of its bytes (all of them up
/// to kWholeFileHashBytes, else the sampled blocks), e.g. "size 1234, crc32c 9a3f00c1" or
/// "size 3100000000, crc32c of 64 blocks 1b2c3d4e". Throws ConfigError naming `key` when the
/// file cannot be read.
std::string file_fingerprint(const std::string& path, const std::string& key);

/// What checkpoints record of `config` (metadata keys "run.config": the resolved config less
/// epochs and threads, which a resume may change; "run.data_files": every data file's path
/// and file_fingerprint(), by key, "data.profile_bigwigs[0][1]" for a pair's second file).
train::CheckpointMetadata run_fingerprint(const RunConfig& config);

/// Compares `config` (a run's config.json, with the resume's epochs and threads) and its data
/// files with what `recorded` (the metadata of `checkpoint`) holds. Throws ConfigError listing
/// every key whose value differs and every data file whose content differs (a file moved to
/// another path with the same content is accepted). A checkpoint without the record (written
/// before strand recorded it) is accepted with a warning.
void check_resume_fingerprint(const RunConfig& config, const train::CheckpointMetadata& recorded,
                              const std::string& checkpoint);

}  // namespace strand::app
