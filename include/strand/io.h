// Umbrella header: general file I/O (namespace strand::io): atomic file writes, CRC32C, the
// limits of JSON inputs, protobuf encoding, TFRecord framing and safetensors.
//   #include <strand/io.h>
#pragma once

#include "io/atomic_file.h"
#include "io/crc32c.h"
#include "io/json_limits.h"
#include "io/npz.h"
#include "io/protobuf_encoder.h"
#include "io/safetensors.h"
#include "io/same_file.h"
#include "io/tfrecord.h"
